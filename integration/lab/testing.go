package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExpiry is how long a test lab's containers live at most if the test never cleans up.
const TestExpiry = 15 * time.Minute

// Start starts a lab for a test (skipping or failing through RequireDocker when there is no
// Docker), with its files in a t.TempDir, and purges it in t.Cleanup.
func Start(t testing.TB, opts Options) *Lab {
	t.Helper()
	RequireDocker(t)
	if opts.Expire == 0 {
		opts.Expire = TestExpiry
	}
	if opts.Log == nil {
		opts.Log = testWriter{t}
	}
	return startForTest(t, "lab", time.Minute, func() (*Lab, error) { return Up(t.Context(), opts, t.TempDir()) })
}

// purger is what a test starts and removes: a lab, a MariaDB, a Galera cluster.
type purger interface {
	Purge(ctx context.Context) error
}

// startForTest starts what up starts, failing t when it cannot, and purges it (within purgeFor)
// in t.Cleanup.
func startForTest[T purger](t testing.TB, what string, purgeFor time.Duration, up func() (T, error)) T {
	t.Helper()
	v, err := up()
	if err != nil {
		t.Fatalf("start %s: %v", what, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), purgeFor)
		defer cancel()
		if err := v.Purge(ctx); err != nil {
			t.Errorf("purge %s: %v", what, err)
		}
	})
	return v
}

// testWriter sends progress lines to t.Log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(p))
	return len(p), nil
}

// Down removes the lab whose files are in dir (everything labelled with its name) and deletes
// those files. A dir with no lab in it is not an error.
func Down(ctx context.Context, dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read lab state: %w", err)
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil || st.Name == "" {
		return "", fmt.Errorf("read lab state %s: not a lab state file", filepath.Join(dir, StateFile))
	}
	if err := Remove(ctx, st.Name); err != nil {
		return "", err
	}
	for _, name := range []string{InventoryFile, KnownHostsFile, KeyFile, KeyFile + ".pub", StateFile, KubeconfigFile, realImagesPlaybook} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("remove lab file: %w", err)
		}
	}
	return st.Name, nil
}

// RequireGalera skips t unless KUPGRADE_GALERA=1 or KUPGRADE_FULL=1: a Galera cluster takes
// about half a minute to start, and its tests some minutes (`make test-galera`).
func RequireGalera(t testing.TB) {
	t.Helper()
	if os.Getenv("KUPGRADE_GALERA") != "1" && os.Getenv("KUPGRADE_FULL") != "1" {
		t.Skip("Galera tests run with KUPGRADE_GALERA=1 or KUPGRADE_FULL=1 (make test-galera)")
	}
	RequireDocker(t)
}

// RequireReal skips t, saying so plainly, unless KUPGRADE_FULL=1 (make test-real): the
// real-Kubernetes tests take 4 to 12 minutes each on two cores, about an hour together, and a
// cold build of the lab compiles a Kubernetes release per version (RealVersions). make test,
// which must stay well inside CI's 90 minutes, leaves them to make test-real even where the real
// lab is built.
func RequireReal(t testing.TB) {
	t.Helper()
	requireReal(t, false)
}

// requireReal is RequireReal, or, with ifBuilt, also runs the test where the real lab is built.
func requireReal(t testing.TB, ifBuilt bool) {
	t.Helper()
	RequireDocker(t)
	if ifBuilt && RealCached(RealVersions...) {
		return
	}
	if os.Getenv("KUPGRADE_FULL") != "1" {
		t.Skipf("a real-Kubernetes test (real lab %s): make test-real, or KUPGRADE_FULL=1, builds the lab when missing and runs it",
			strings.Join(RealVersions, " -> "))
	}
}

// StartReal starts a real lab for a test (see RequireReal), with its files in a t.TempDir, and
// purges it in t.Cleanup.
func StartReal(t testing.TB, opts RealOptions) *Lab {
	t.Helper()
	requireReal(t, opts.IfBuilt)
	if opts.Expire == 0 {
		opts.Expire = 2 * TestExpiry
	}
	if opts.Log == nil {
		opts.Log = testWriter{t}
	}
	return startForTest(t, "real lab", 2*time.Minute, func() (*Lab, error) { return UpReal(t.Context(), opts, t.TempDir()) })
}
