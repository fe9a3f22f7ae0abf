package sshconn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// TestReadStatus feeds the agent's stdout as the client sees it, whole and one byte at a time:
// the command's output must come through byte for byte, whatever it holds, and the status must
// be the one on the mark's line.
func TestReadStatus(t *testing.T) {
	const mark = "kupgrade-0123456789abcdef0123456789abcdef"
	tests := []struct {
		name, stream string
		out          string
		status       int
		left         bool
		err          string
		wholeOnly    bool // read one byte at a time, the stream ends at the status line
	}{
		{name: "no output", stream: "\n" + mark + " 0 0\n", status: 0},
		{name: "line", stream: "hello\n\n" + mark + " 3 0\n", out: "hello\n", status: 3},
		{name: "no final newline", stream: "abc\n" + mark + " 0 0\n", out: "abc"},
		{name: "only newlines", stream: "\n\n\n\n" + mark + " 0 0\n", out: "\n\n\n"},
		{name: "another mark's prefix", stream: "\nkupgrade-0123 x\n" + mark[:20] + "\n" + mark + " 1 1\n",
			out: "\nkupgrade-0123 x\n" + mark[:20], status: 1, left: true},
		{name: "mark without its newline is output", stream: mark + " 9 0\n\n" + mark + " 0 0\n", out: mark + " 9 0\n"},
		{name: "signal status", stream: "\n" + mark + " 143 0\n", status: 143},
		{name: "binary", stream: "\x00\xff\r\n\x00\n" + mark + " 0 0\n", out: "\x00\xff\r\n\x00"},
		{name: "agent gone", stream: "partial output", out: "partial output", err: "unexpected EOF"},
		{name: "gone before the status", stream: "\n" + mark + " 1", err: "unexpected EOF"},
		{name: "no group word", stream: "\n" + mark + " 0\n", err: "want an exit status"},
		{name: "status out of range", stream: "\n" + mark + " 256 0\n", err: "want an exit status"},
		{name: "bytes after the status", stream: "\n" + mark + " 0 0\nx", err: "unexpected bytes", wholeOnly: true},
	}
	for _, tt := range tests {
		for _, split := range []bool{false, true} {
			if split && tt.wholeOnly {
				continue
			}
			name := tt.name
			var r io.Reader = strings.NewReader(tt.stream)
			if split {
				name += "/byte by byte"
				r = iotest.OneByteReader(r)
			}
			t.Run(name, func(t *testing.T) {
				var out bytes.Buffer
				st, left, err := readStatus(r, &out, mark, nil)
				if tt.err != "" {
					if err == nil || !strings.Contains(err.Error(), tt.err) {
						t.Fatalf("err = %v, want one saying %q", err, tt.err)
					}
					return
				}
				if err != nil {
					t.Fatalf("readStatus: %v", err)
				}
				if st != tt.status || left != tt.left || out.String() != tt.out {
					t.Errorf("got status %d, left %v, output %q; want %d, %v, %q", st, left, out.String(), tt.status, tt.left, tt.out)
				}
			})
		}
	}
}

// TestCopyToMarkLargeOutput: output much larger than the read buffer, with near-marks across
// buffer boundaries, arrives whole.
func TestCopyToMarkLargeOutput(t *testing.T) {
	mark := []byte("\nkupgrade-feedfacefeedfacefeedfacefeedface\n")
	var want bytes.Buffer
	for i := 0; want.Len() < 1<<20; i++ {
		want.Write(mark[:i%len(mark)])
		want.WriteString("line of output\n")
	}
	stream := append(bytes.Clone(want.Bytes()), mark...)
	var got bytes.Buffer
	rest, err := copyToMark(iotest.HalfReader(bytes.NewReader(stream)), &got, mark, nil)
	if err != nil || len(rest) != 0 {
		t.Fatalf("copyToMark: rest %q, err %v", rest, err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("output differs: got %d bytes, want %d", got.Len(), want.Len())
	}
}

// TestCopyToMarkWriterError: a failing writer does not stop the stream from being read to the
// mark (the agent stays in step), and its error is reported.
func TestCopyToMarkWriterError(t *testing.T) {
	boom := errors.New("disk full")
	mark := []byte("\nM\n")
	rest, err := copyToMark(strings.NewReader("a lot of output\nM\n"), failWriter{boom}, mark, nil)
	if !errors.Is(err, boom) || len(rest) != 0 {
		t.Fatalf("copyToMark = %q, %v; want the writer's error", rest, err)
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// TestAgentWord: every command becomes one line that the agent's shell reads back as the same
// text.
func TestAgentWord(t *testing.T) {
	for _, cmd := range []string{"", "true", "echo 'it''s'\nexit 3\n", "a\n\nb", `printf "%s\n" "$HOME" \` + "\n", "$(x) `y` \"'"} {
		w := agentWord(cmd)
		if strings.Contains(w, "\n") {
			t.Errorf("agentWord(%q) = %q holds a newline", cmd, w)
		}
		out, err := exec.Command("sh", "-c", "nl=\"\n\"; eval \"x=$1\"; printf %s \"$x\"", "sh", w).Output()
		if err != nil || string(out) != cmd {
			t.Errorf("sh reads agentWord(%q) back as %q (%v)", cmd, out, err)
		}
	}
}

// TestExecWords: the commands sent as words are exactly those sh would split into the same
// words, and everything else goes to sh.
func TestExecWords(t *testing.T) {
	words := []string{
		"exec /bin/true",
		"exec  kubeadm   upgrade node",
		`exec sudo -n -u root -- sh -c 'echo '\''hi'\'''`,
		"exec env A=1 'B=x y' sh -c 'x'",
		"exec printf %s 'two\nlines'",
		`exec a\ b c\'d`,
		"exec a ''",
	}
	others := []string{
		"", "exec", "exec ", "exec -a name true", "/bin/true", "true && exec x", "exec a; b",
		"exec a $HOME", `exec a "b"`, "exec a 'b", "exec a > f", "exec a\nb", "exec a b*",
		"exec a ~", "exec a #c", "exec a|b", "exec a `b`", "exec\ta", `exec a \`,
	}
	for _, cmd := range words {
		got, ok := execWords(cmd)
		if !ok {
			t.Errorf("execWords(%q) refused, want words", cmd)
			continue
		}
		out, err := exec.Command("sh", "-c", "set -- "+strings.TrimPrefix(cmd, "exec ")+`; printf '%s\0' "$@"`).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if !slices.Equal(got, want) {
			t.Errorf("execWords(%q) = %q, sh says %q", cmd, got, want)
		}
	}
	for _, cmd := range others {
		if got, ok := execWords(cmd); ok {
			t.Errorf("execWords(%q) = %q, want it left to sh", cmd, got)
		}
	}
}

// FuzzReadStatus: whatever the agent's stdout holds, readStatus does not panic, and when it
// accepts the stream, what it copied plus the mark line is exactly what it read.
func FuzzReadStatus(f *testing.F) {
	const mark = "kupgrade-00112233445566778899aabbccddeeff"
	f.Add([]byte("out\n\n" + mark + " 0 0\n"))
	f.Add([]byte("\n" + mark + " 255 1\n"))
	f.Add([]byte(mark[:10] + "\n" + mark + " 3 0\n"))
	f.Add([]byte("no mark at all"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		var out bytes.Buffer
		st, left, err := readStatus(iotest.HalfReader(bytes.NewReader(stream)), &out, mark, nil)
		if err != nil {
			return
		}
		line := fmt.Sprintf("\n%s %d %d\n", mark, st, map[bool]int{false: 0, true: 1}[left])
		if got := out.String() + line; !strings.HasPrefix(string(stream), got) && got != string(stream) {
			t.Fatalf("stream %q read as output %q and status line %q", stream, out.String(), line)
		}
	})
}

// FuzzExecWords: execWords never panics, and the words it finds, quoted again, are found again.
func FuzzExecWords(f *testing.F) {
	for _, s := range []string{"exec a b", `exec sudo -n -- sh -c 'x '\''y'\'''`, `exec a\ b`, "exec 'a\nb'", "exec a$b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		words, ok := execWords(cmd)
		if !ok {
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = shellword.Quote(w)
		}
		again, ok := execWords("exec " + strings.Join(quoted, " "))
		if !ok || !slices.Equal(again, words) {
			t.Fatalf("%q: words %q, quoted again %q, found %q (%v)", cmd, words, quoted, again, ok)
		}
	})
}
