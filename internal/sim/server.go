package sim

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strings"

	"golang.org/x/crypto/ssh"
)

func (f *Fleet) accept() {
	for {
		nc, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.open[nc] = true
		f.mu.Unlock()
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.serve(nc)
			f.mu.Lock()
			delete(f.open, nc)
			f.mu.Unlock()
		}()
	}
}

// serve is one SSH connection to one virtual host, told by the login.
func (f *Fleet) serve(nc net.Conn) {
	defer nc.Close()
	conn, chans, reqs, err := ssh.NewServerConn(nc, f.cfg)
	if err != nil {
		return
	}
	defer conn.Close()
	f.conns.Add(1)
	h := f.hosts[conn.User()]
	go ssh.DiscardRequests(reqs)
	for nch := range chans {
		if nch.ChannelType() != "session" {
			nch.Reject(ssh.UnknownChannelType, "only sessions here") //nolint:errcheck // best effort
			continue
		}
		go h.session(nch, conn)
	}
}

// dropKey is the context key of the function that drops the SSH connection serving a session.
type dropKey struct{}

// dropConn drops the SSH connection that serves ctx's session, and reports whether there was one.
func dropConn(ctx context.Context) bool {
	drop, ok := ctx.Value(dropKey{}).(func())
	if ok {
		drop()
	}
	return ok
}

// session serves a session: the kupgrade agent (agentScript's protocol, answered natively), or
// one command.
func (h *Host) session(nch ssh.NewChannel, conn *ssh.ServerConn) {
	ch, reqs, err := nch.Accept()
	if err != nil {
		return
	}
	drop := func() { conn.Close() } //nolint:errcheck // the connection is dropped on purpose
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), dropKey{}, drop))
	defer cancel()
	for r := range reqs {
		if r.Type == "env" {
			r.Reply(true, nil) //nolint:errcheck // the client may be gone
			continue
		}
		var arg struct{ Value string }
		if r.Type != "exec" || ssh.Unmarshal(r.Payload, &arg) != nil {
			r.Reply(false, nil) //nolint:errcheck // the client may be gone
			continue
		}
		r.Reply(true, nil) //nolint:errcheck // the client may be gone
		go func() {
			rc := 0
			if strings.Contains(arg.Value, "kupgrade-agent") {
				h.agent(ctx, ch)
			} else {
				rc = h.Run(ctx, arg.Value, nil, nil, ch, ch.Stderr())
			}
			ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(rc)})) //nolint:errcheck // the client may be gone
			ch.Close()
		}()
	}
}

// agent answers the kupgrade agent's protocol (runner/sshconn agentScript) as its sh flavour
// does: "s MARK WORD" runs the script WORD; each answer ends with "\nMARK STATUS 0" on stdout
// and "\nMARK" on stderr. It ends at the end of stdin (the client cancels by closing it), which
// stops the command running then, as the agent's reader does.
func (h *Host) agent(ctx context.Context, ch ssh.Channel) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fmt.Fprintln(ch, "kupgrade-agent 1 sh")
	for line := range readLines(ctx, ch, cancel) {
		t, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		mark, word, _ := strings.Cut(rest, " ")
		rc := 2
		if script, err := unquote(word); t == "s" && err == nil {
			rc = h.Run(ctx, script, nil, nil, ch, ch.Stderr())
		} else {
			fmt.Fprintf(ch.Stderr(), "kupgrade sim agent: bad request %q: %v\n", t, err)
		}
		fmt.Fprintf(ch, "\n%s %d 0\n", mark, rc)
		fmt.Fprintf(ch.Stderr(), "\n%s\n", mark)
	}
}

// readLines sends the lines of r until its end, then calls stop.
func readLines(ctx context.Context, r io.Reader, stop func()) <-chan string {
	lines := make(chan string)
	go func() {
		defer stop()
		defer close(lines)
		in := bufio.NewReader(r)
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return
			}
			select {
			case lines <- line:
			case <-ctx.Done():
				return
			}
		}
	}()
	return lines
}

// unquote reads the agent's WORD (agentWord): single-quoted parts, backslash-escaped characters
// and "$nl" for a newline, nothing else.
func unquote(word string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(word); {
		switch {
		case word[i] == '\'':
			j := strings.IndexByte(word[i+1:], '\'')
			if j < 0 {
				return "", fmt.Errorf("unterminated quote")
			}
			b.WriteString(word[i+1 : i+1+j])
			i += j + 2
		case word[i] == '\\' && i+1 < len(word):
			b.WriteByte(word[i+1])
			i += 2
		case strings.HasPrefix(word[i:], `"$nl"`):
			b.WriteByte('\n')
			i += len(`"$nl"`)
		case word[i] == '"' || word[i] == '$' || word[i] == ' ':
			return "", fmt.Errorf("unexpected %q at %d", word[i], i)
		default:
			b.WriteByte(word[i])
			i++
		}
	}
	return b.String(), nil
}
