package sshconn

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// agentScript is the POSIX sh program of an agent session: one long-lived session per
// connection that runs commands one after another, so a command costs the host a fork and an
// exec or two instead of a whole SSH session (sshd's channel set-up, a login shell, the
// wrapper). defaultAgentStart runs it under bash where the host has bash, else under sh.
//
// Start-up: with job control (bash's `set -m` works without a terminal, dash refuses it) every
// command gets a process group of its own at no cost; without it, setsid gives it one. The agent
// then prints its banner, "kupgrade-agent 1 argv" with job control, "kupgrade-agent 1 sh" without.
//
// Requests come one at a time, each one line on stdin: "s MARK WORD" runs the script WORD
// (one shell word without raw newlines, agentWord) as `sh -c`; "a MARK WORD..." (with job
// control only) runs the words as the command line `exec WORD...`, which is what sh -c would
// do with it, less sh's own exec. MARK is a fresh random token. The command reads /dev/null; its
// output goes to the agent's stdout and stderr. When it has ended the agent prints
// "\nMARK STATUS LEFT\n" on stdout and "\nMARK\n" on stderr; the newline before each mark is
// the agent's, not the command's. LEFT is 1 when processes of the command's group outlived it:
// the client then retires that agent, so their output cannot mix into a later command's.
//
// While a command runs a reader watches stdin: the client sends nothing then, so a line or the
// end of stdin means stop. The client closes stdin to cancel; a lost connection closes it too.
// The reader then stops the command's group (stopGroup); the agent reports
// the status as usual and exits at the end of its stdin. The reader sits outside the command's
// group, so sudo relays the signals it sends. A command that ends on its own is not signalled,
// nor are the background processes it leaves.
const agentScript = `exec 3<&0
nl="
"
set -m 2>/dev/null
S= J=sh
case $- in
*m*) J=argv ;;
*) command -v setsid >/dev/null 2>&1 && S=setsid ;;
esac
echo kupgrade-agent 1 $J
while IFS=" " read -r t m q; do
case $t in
a) eval "set -- $q"; exec "$@" </dev/null 3<&- & ;;
*) eval "x=$q"; $S sh -c "$x" </dev/null 3<&- & ;;
esac
c=$!
(read -r _; trap "" TERM
if kill -0 $c 2>/dev/null; then ` + stopGroup + `; fi) <&3 >/dev/null 2>&1 &
r=$!
wait $c 2>/dev/null; s=$?
kill $r 2>/dev/null; wait $r 2>/dev/null
g=0; kill -0 -$c 2>/dev/null && g=1
printf "\n%s %d %d\n" "$m" $s $g
printf "\n%s\n" "$m" >&2
done`

// agentSetup is how a Client starts its agents. The zero value means the defaults; only this
// package's tests change them, through the Dialer (export_test.go).
type agentSetup struct {
	start      string        // the command line that starts the agent (defaultAgentStart)
	bannerWait time.Duration // how long the agent may take to print its banner
}

// defaultBannerWait is how long the agent may take to print its banner.
const defaultBannerWait = 30 * time.Second

// defaultAgentStart is the command line that starts the agent: under bash when the host has it.
func defaultAgentStart() string {
	return "a=" + shellword.Quote(agentScript) + `; command -v bash >/dev/null 2>&1 && exec bash -c "$a" sh; exec sh -c "$a" sh`
}

// orDefaults fills in what s leaves unset.
func (s agentSetup) orDefaults() agentSetup {
	if s.start == "" {
		s.start = defaultAgentStart()
	}
	if s.bannerWait <= 0 {
		s.bannerWait = defaultBannerWait
	}
	return s
}

// agentBanner starts the agent's first line, which then says "argv" or "sh" (agentScript). A
// server whose shell cannot run the agent never prints it, and the client falls back to a
// session per command.
const agentBanner = "kupgrade-agent 1 "

// agentWord makes cmd one shell word that holds no newline: its lines, each quoted
// (shellword.Quote), joined by the agent's $nl.
func agentWord(cmd string) string {
	lines := strings.Split(cmd, "\n")
	for i, l := range lines {
		lines[i] = shellword.Quote(l)
	}
	return strings.Join(lines, `"$nl"`)
}

// errNoAgent says the server's shell did not start the agent: use a session per command.
var errNoAgent = errors.New("the remote shell did not start the kupgrade agent")

// errAgentEnded says an agent session ended in the middle of a command while the connection
// stayed up (the command killed the agent, or the server closed the session).
var errAgentEnded = errors.New("the agent session ended before the command did")

// errNotSent says an agent's session was gone before the request left: the command did not
// run, and another agent may run it.
var errNotSent = errors.New("the agent session ended before the command was sent")

// maxIdleAgents is how many finished agents a connection keeps for the next commands.
const maxIdleAgents = 2

// agentSession is one agent session, owned by one Run at a time.
type agentSession struct {
	argv     bool // it runs "a" requests (agentScript)
	s        *ssh.Session
	in       io.WriteCloser
	out, err io.Reader
	ended    chan struct{} // closed when the session has ended

	outBuf, errBuf []byte // the readers' scratch space, kept from one command to the next
}

func (a *agentSession) close() { a.s.Close() }

// alive reports whether the agent's session goes on: an idle agent may have been killed on the
// host while the connection stayed up.
func (a *agentSession) alive() bool { return !isClosed(a.ended) }

// takeAgent returns an idle agent or starts one. errNoAgent means this server cannot run one.
func (c *Client) takeAgent(ctx context.Context) (*agentSession, error) {
	c.agentMu.Lock()
	if c.noAgent {
		c.agentMu.Unlock()
		return nil, errNoAgent
	}
	for n := len(c.idle); n > 0; n-- {
		a := c.idle[n-1]
		c.idle = c.idle[:n-1]
		if a.alive() {
			c.agentMu.Unlock()
			return a, nil
		}
		a.close()
	}
	c.agentMu.Unlock()
	a, err := c.startAgent(ctx)
	if errors.Is(err, errNoAgent) {
		c.agentMu.Lock()
		c.noAgent = true
		c.agentMu.Unlock()
	}
	return a, err
}

// putAgent keeps an agent whose last command ended cleanly, or closes it.
func (c *Client) putAgent(a *agentSession) {
	c.agentMu.Lock()
	keep := len(c.idle) < maxIdleAgents
	if keep {
		c.idle = append(c.idle, a)
	}
	c.agentMu.Unlock()
	if !keep {
		a.close()
	}
}

func (c *Client) startAgent(ctx context.Context) (*agentSession, error) {
	s, err := c.ssh.NewSession()
	if err != nil {
		return nil, c.connErr("open session", err)
	}
	a := &agentSession{s: s, outBuf: make([]byte, 0, 32<<10), errBuf: make([]byte, 0, 32<<10)}
	if a.in, err = s.StdinPipe(); err == nil {
		if a.out, err = s.StdoutPipe(); err == nil {
			a.err, err = s.StderrPipe()
		}
	}
	if err != nil {
		s.Close()
		return nil, c.connErr("open agent pipes", err)
	}
	if err := s.Start(c.agents.start); err != nil {
		s.Close()
		return nil, c.connErr("start agent", err)
	}
	a.ended = make(chan struct{})
	go func() {
		s.Wait() //nolint:errcheck // only the end matters here
		close(a.ended)
	}()
	got := make(chan error, 1)
	go func() {
		// Some login shells print a greeting first (a line of its own or not): skip up to
		// bannerSkip bytes of it.
		for read := 0; ; {
			line, err := readLine(a.out, bannerSkip-read)
			read += len(line) + 1
			switch {
			case err != nil:
			case strings.HasSuffix(line, agentBanner+"argv"):
				a.argv = true
			case !strings.HasSuffix(line, agentBanner+"sh"):
				continue
			}
			got <- err
			return
		}
	}()
	timer := time.NewTimer(c.agents.bannerWait)
	defer timer.Stop()
	select {
	case err = <-got:
	case <-timer.C: // a shell that waits for something else: close it, fall back
		s.Close()
		<-got
		err = errNoAgent
	case <-ctx.Done():
		s.Close()
		<-got
		return nil, fmt.Errorf("run on %s: %w", c.host, cause(ctx))
	}
	if err != nil {
		s.Close()
		if c.isDone() {
			return nil, c.connErr("start agent", err)
		}
		return nil, errNoAgent
	}
	return a, nil
}

// bannerSkip is how much a login shell may print before the agent's banner.
const bannerSkip = 8 << 10

// readLine reads one line of at most max bytes, byte by byte, and returns it without its
// newline.
func readLine(r io.Reader, max int) (string, error) {
	var line []byte
	var b [1]byte
	for len(line) < max {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return "", err
		}
		if b[0] == '\n' {
			return string(line), nil
		}
		line = append(line, b[0])
	}
	return "", errNoAgent
}

// runAgent runs cmd through a and gives a back when the command ended cleanly. On cancel it
// closes the agent's stdin, which stops the command (see agentScript), waits for the agent to
// report, and closes the session.
func (c *Client) runAgent(ctx context.Context, a *agentSession, cmd string, stdout, stderr io.Writer) (int, error) {
	mark := newMark()
	req := "s " + mark + " " + agentWord(cmd) + "\n"
	if words, ok := execWords(cmd); ok && a.argv {
		for i, w := range words {
			words[i] = agentWord(w)
		}
		req = "a " + mark + " " + strings.Join(words, " ") + "\n"
	}
	if _, err := io.WriteString(a.in, req); err != nil {
		a.close()
		if !c.isDone() {
			return -1, errNotSent
		}
		return -1, c.connErr("send command", err)
	}
	type result struct {
		status int
		left   bool
		err    error
	}
	outDone, errDone := make(chan result, 1), make(chan error, 1)
	go func() {
		st, left, err := readStatus(a.out, orDiscard(stdout), mark, a.outBuf)
		outDone <- result{st, left, err}
	}()
	go func() {
		rest, err := copyToMark(a.err, orDiscard(stderr), []byte("\n"+mark+"\n"), a.errBuf)
		if err == nil && len(rest) > 0 {
			err = fmt.Errorf("%d unexpected bytes after the end mark", len(rest))
		}
		errDone <- err
	}()

	select {
	case <-ctx.Done():
	case r := <-outDone:
		errErr := <-errDone
		switch {
		case r.err == nil && errErr == nil && !r.left:
			c.putAgent(a)
			return r.status, nil
		case r.err == nil && errErr == nil:
			// What the command left running may still write to the agent's output: give
			// that output nowhere to go but a closed session.
			a.close()
			return r.status, nil
		}
		a.close()
		return -1, c.agentErr(errors.Join(r.err, errErr))
	}
	a.in.Close() // the agent's reader stops the command
	t := time.NewTimer(termGrace + killGrace + time.Second)
	defer t.Stop()
	waited := make(chan struct{})
	go func() { <-outDone; <-errDone; close(waited) }()
	select {
	case <-waited:
	case <-t.C: // a stalled server: closing the session ends both readers
	}
	a.close()
	<-waited
	return -1, fmt.Errorf("run on %s: %w", c.host, cause(ctx))
}

// agentErr explains an agent that stopped talking mid-command: the connection's error when
// it ended, else errAgentEnded.
func (c *Client) agentErr(err error) error {
	if c.isDone() {
		return c.connErr("run command", err)
	}
	return &Error{Host: c.host, Addr: c.addr, Class: Closed, Err: fmt.Errorf("%w: %v", errAgentEnded, err)}
}

func newMark() string { return "kupgrade-" + rand.Text() }

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// readStatus copies r to w up to "\nMARK " and reads the rest of that line, the last thing
// the agent writes before the next request: the command's status, and whether processes of its
// group outlived it.
func readStatus(r io.Reader, w io.Writer, mark string, buf []byte) (status int, left bool, err error) {
	line, err := copyToMark(r, w, []byte("\n"+mark+" "), buf)
	for err == nil && bytes.IndexByte(line, '\n') < 0 && len(line) <= 5 {
		var b [8]byte
		var n int
		n, err = r.Read(b[:])
		line = append(line, b[:n]...)
	}
	i := bytes.IndexByte(line, '\n')
	if i < 0 {
		if err == nil {
			err = fmt.Errorf("%q is too long", line)
		}
		return -1, false, fmt.Errorf("read the exit status: %w", eofUnexpected(err))
	}
	st, g, _ := strings.Cut(string(line[:i]), " ")
	status, aerr := strconv.Atoi(st)
	switch {
	case aerr != nil || status < 0 || status > 255 || strconv.Itoa(status) != st || (g != "0" && g != "1"):
		return -1, false, fmt.Errorf("status line %q: want an exit status from 0 to 255 and 0 or 1", line[:i])
	case i < len(line)-1:
		return -1, false, fmt.Errorf("%d unexpected bytes after the status line", len(line)-1-i)
	}
	return status, g == "1", nil
}

// copyToMark copies r to w until mark, which it consumes and does not copy, and returns what
// it read after the mark. buf is its scratch space (nil: 32 KiB of its own).
func copyToMark(r io.Reader, w io.Writer, mark, buf []byte) ([]byte, error) {
	if cap(buf) == 0 {
		buf = make([]byte, 0, 32<<10)
	}
	buf = buf[:0]
	var werr error
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if i := bytes.Index(buf, mark); i >= 0 {
			if werr == nil && i > 0 {
				_, werr = w.Write(buf[:i])
			}
			return buf[i+len(mark):], werr
		}
		// Keep the tail that may be the start of the mark; copy the rest.
		keep := markPrefix(buf, mark)
		if werr == nil && keep > 0 {
			_, werr = w.Write(buf[:keep])
		}
		buf = append(buf[:0], buf[keep:]...)
		if err != nil {
			return nil, eofUnexpected(err)
		}
	}
}

func eofUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// markPrefix returns where the longest suffix of buf that is a proper prefix of mark starts,
// or len(buf) when there is none.
func markPrefix(buf, mark []byte) int {
	for i := max(0, len(buf)-len(mark)+1); i < len(buf); i++ {
		if bytes.HasPrefix(mark, buf[i:]) {
			return i
		}
	}
	return len(buf)
}

// execWords splits cmd into the words after its leading `exec` when cmd is nothing but that:
// `exec` and words written with shellword.Quote's forms (plain characters, single-quoted strings
// and backslash escapes), with no option to exec. Such a command means the same under `sh -c`
// and as an "a" request. ok is false for anything else: other quoting, expansions, operators,
// redirections, comments.
func execWords(cmd string) (words []string, ok bool) {
	rest, found := strings.CutPrefix(cmd, "exec ")
	if !found {
		return nil, false
	}
	words, err := shellword.SplitPlain(rest)
	if err != nil || len(words) == 0 || strings.HasPrefix(words[0], "-") {
		return nil, false
	}
	return words, true
}
