package sshconn_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

func TestRunExitStatusAndOutput(t *testing.T) {
	eachMode(t, func(t *testing.T, srv *sshtest.Server, mode sshconn.DialOption) {
		c := dial(t, srv, mode)
		tests := []struct {
			name, cmd, stdin string
			exit             int
			stdout, stderr   string
		}{
			{name: "success", cmd: "echo hello", stdout: "hello\n"},
			{name: "non-zero exit is not an error", cmd: "echo oops >&2; exit 3", exit: 3, stderr: "oops\n"},
			{name: "both streams", cmd: "echo out; echo err >&2; exit 1", exit: 1, stdout: "out\n", stderr: "err\n"},
			{name: "single quotes survive", cmd: `printf '%s\n' "it's"`, stdout: "it's\n"},
			{name: "shell syntax", cmd: `for i in 1 2; do echo "$i"; done | tr '\n' ,`, stdout: "1,2,"},
			{name: "stdin reaches the command", cmd: "tr a-z A-Z", stdin: "abc\n", stdout: "ABC\n"},
			{name: "no stdin reads as empty", cmd: "cat; echo done", stdout: "done\n"},
			{name: "killed by a signal", cmd: "kill -9 $$", exit: 137},
			{name: "command not found", cmd: "no-such-command-kupgrade", exit: 127},
			{name: "no final newline", cmd: "printf abc; printf def >&2", stdout: "abc", stderr: "def"},
			{name: "empty lines kept", cmd: `printf '\n\n'`, stdout: "\n\n"},
			{name: "multi-line script", cmd: "a=1\nif [ $a = 1 ]; then\n  echo 'one\ntwo'\nfi", stdout: "one\ntwo\n"},
			{name: "exec form", cmd: "exec echo hello", stdout: "hello\n"},
			{name: "exec form with quotes", cmd: `exec sh -c 'echo out; echo "it'\''s" >&2; exit 4'`, exit: 4, stdout: "out\n", stderr: "it's\n"},
			{name: "exec form keeps a newline in a word", cmd: "exec printf %s 'two\nlines'", stdout: "two\nlines"},
			{name: "exec form killed by a signal", cmd: `exec sh -c 'kill -9 $$'`, exit: 137},
			{name: "exec form not found", cmd: "exec no-such-command-kupgrade", exit: 127},
			{name: "exec form runs no builtin", cmd: "exec cd /", exit: 127},
			{name: "exec form with stdin", cmd: "exec tr a-z A-Z", stdin: "abc\n", stdout: "ABC\n"},
			{name: "exec form reads no stdin", cmd: "exec cat", stdout: ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				var stdin io.Reader
				if tt.stdin != "" {
					stdin = strings.NewReader(tt.stdin)
				}
				exit, err := c.Run(t.Context(), tt.cmd, stdin, &stdout, &stderr)
				if err != nil {
					t.Fatalf("Run(%q): %v", tt.cmd, err)
				}
				if exit != tt.exit {
					t.Errorf("Run(%q) exit = %d, want %d (stderr %q)", tt.cmd, exit, tt.exit, stderr.String())
				}
				if stdout.String() != tt.stdout {
					t.Errorf("stdout = %q, want %q", stdout.String(), tt.stdout)
				}
				if tt.stderr != "" && stderr.String() != tt.stderr {
					t.Errorf("stderr = %q, want %q", stderr.String(), tt.stderr)
				}
			})
		}
	})
}
