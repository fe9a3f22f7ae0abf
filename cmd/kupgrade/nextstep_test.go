package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// The next step a store error carries is spelled by cmd as this binary's command, completed
// with the global flags the operator gave (a relative database path made absolute, so that the
// command names the same file wherever it is pasted), and the sentence around it stays the store's.
func TestStoreNextStepRendered(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	st, err := sqlite.Open(t.Context(), "k.db") // a database with no upgrade in it
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, _, errOut := run(t, "--db", "sqlite:k.db", "upgrade", "delete")
	want := "(start one with `kupgrade upgrade start VERSION --db sqlite:" + filepath.Join(dir, "k.db") + "`)"
	if code != exitRefused || !strings.Contains(errOut, want) {
		t.Errorf("status %d, stderr %q; want %d and %q", code, errOut, exitRefused, want)
	}
}

// message renders the steps of a wrapped NextStepError in place, a word the shell would split
// quoted so that the command can be pasted, and leaves other text alone.
func TestMessageRendersWrappedNextStep(t *testing.T) {
	inner := state.WithNextSteps(fmt.Errorf("%w: host node 1", state.ErrConflict), "; fail it with `%s`",
		state.Next("host", "fail", "node 1"))
	err := fmt.Errorf("apply: %w", inner)
	if got, want := message(err), "apply: conflict: host node 1; fail it with `kupgrade host fail 'node 1'`"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if got := message(errors.New("plain")); got != "plain" {
		t.Errorf("message of a plain error %q", got)
	}
}
