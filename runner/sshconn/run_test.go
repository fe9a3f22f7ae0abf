package sshconn_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestRunExitStatusAndOutput(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			c := dial(t, k.start(t))
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
}
