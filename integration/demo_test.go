//go:build integration

package integration_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// TestDemo runs the script `make demo` runs, end to end, on each state store: it must exit 0
// and its story must reach upgrade-complete. The MariaDB run starts its own server through
// kupgrade-lab, as `make demo DB=mysql` does.
func TestDemo(t *testing.T) {
	t.Parallel()
	lab.RequireDocker(t)
	bin := binaries(t)
	script, err := filepath.Abs(filepath.Join("demo", "demo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{"sqlite", "mysql"} {
		t.Run(db, func(t *testing.T) {
			// A stuck demo must not hold the suite: SIGTERM lets the script's trap remove its lab.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
			defer cancel()
			c := exec.CommandContext(ctx, "bash", script)
			c.Cancel = func() error { return c.Process.Signal(syscall.SIGTERM) }
			c.WaitDelay = 30 * time.Second
			c.Env = append(os.Environ(),
				"BIN="+bin, "DB="+db, "KEEP_LAB=0",
				"DEMO_DIR="+filepath.Join(t.TempDir(), "demo"), "HOME="+t.TempDir())
			var out bytes.Buffer
			c.Stdout, c.Stderr = &out, &out
			err := c.Run()
			if err != nil {
				t.Fatalf("demo.sh (DB=%s): %v\n%s", db, err, out.String())
			}
			if !strings.Contains(out.String(), "upgrade-complete") {
				t.Errorf("demo.sh (DB=%s) exited 0 but never printed upgrade-complete:\n%s", db, out.String())
			}
		})
	}
}
