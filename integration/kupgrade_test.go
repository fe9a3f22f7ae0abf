//go:build integration

package integration_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/kupgrade/kupgrade/integration/lab"
)

const target = "v1.30.2"

// kupgrade is the binary under test (built once per test binary, see binaries) pointed at one
// lab and one database.
type kupgrade struct {
	bin   string
	env   []string
	limit time.Duration // how long one command may run; commandLimit when 0
}

func buildKupgrade(t testing.TB, l *lab.Lab, dbPath string) *kupgrade {
	t.Helper()
	bin := filepath.Join(binaries(t), "kupgrade")
	return &kupgrade{bin: bin, env: append(os.Environ(), "KUPGRADE_DB=sqlite:"+dbPath, "KUPGRADE_INVENTORY="+l.Inventory(), "HOME="+t.TempDir(), "KUPGRADE_LOG_DIR="+t.TempDir())}
}

func (k *kupgrade) cmd(ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer) {
	c := exec.CommandContext(ctx, k.bin, args...)
	var out bytes.Buffer
	c.Env, c.Stdout, c.Stderr = k.env, &out, &out
	return c, &out
}

func (k *kupgrade) must(t *testing.T, args ...string) string {
	t.Helper()
	c, out := k.cmd(t.Context(), args...)
	if err := c.Run(); err != nil {
		t.Fatalf("kupgrade %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out.String()
}
