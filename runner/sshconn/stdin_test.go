package sshconn_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner/sshconn"
)

// TestStdinEndsAfterTheCommandStarts gives a command stdin, empty or not, while the client is
// slow to send the command, as a loaded machine is: the command must read all of it and its
// end. OpenSSH loses the end of stdin that arrives before the command has started, so a
// client sending it early leaves a command such as the `cat > file` of a module writing an
// empty file waiting forever.
func TestStdinEndsAfterTheCommandStarts(t *testing.T) {
	sshconn.SlowStart(t, 200*time.Millisecond)
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			c := dial(t, k.start(t), sshconn.AgentMode(t, "session per command"))
			for _, in := range []string{"", "some content\n"} {
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				var out bytes.Buffer
				exit, err := c.Run(ctx, "cat; echo end", strings.NewReader(in), &out, nil)
				cancel()
				if err != nil || exit != 0 || out.String() != in+"end\n" {
					t.Errorf("cat with stdin %q: exit %d, err %v, stdout %q; want %q", in, exit, err, out.String(), in+"end\n")
				}
			}
		})
	}
}
