package sqlite_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// The store's "no upgrade" error names its next step as a typed value, keeps its class, and
// spells the step as a plain command only in its Error text; a caller renders it its own way.
func TestNotFoundCarriesNextStep(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = st.Upgrade(t.Context(), "c1")
	var ne *state.NextStepError
	if !errors.As(err, &ne) || !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Upgrade of a missing cluster: %v (%T), want a NextStepError of class ErrNotFound", err, err)
	}
	if want := []state.NextStep{state.Next("upgrade", "start", "VERSION")}; !reflect.DeepEqual(ne.Steps, want) {
		t.Errorf("steps %v, want %v", ne.Steps, want)
	}
	if !strings.HasSuffix(err.Error(), `no upgrade for cluster "c1" (start one with `+"`kupgrade upgrade start VERSION`)") {
		t.Errorf("plain text %q", err.Error())
	}
	shout := func(s state.NextStep) string { return strings.ToUpper(strings.Join(s.Words, "-")) }
	if got := ne.Render(shout); !strings.HasSuffix(got, "(start one with `UPGRADE-START-VERSION`)") {
		t.Errorf("rendered %q", got)
	}
}
