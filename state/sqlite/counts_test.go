package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/state/sqlite"
)

// TestCountsArePerStore: each store counts its own transactions and statements (fleet run's
// "database: N transactions, M statements" line), not those of every store the process opened.
func TestCountsArePerStore(t *testing.T) {
	open := func(name string) *sqlite.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b := open("a.db"), open("b.db")
	before := b.Counts()
	if _, err := a.CreateUpgrade(t.Context(), newUpgrade); err != nil {
		t.Fatal(err)
	}
	got := a.Counts()
	if got.Transactions == 0 || got.Statements == 0 {
		t.Errorf("store a after creating an upgrade: %+v, want transactions and statements counted", got)
	}
	if after := b.Counts(); after != before {
		t.Errorf("store b counted store a's work: %+v before, %+v after", before, after)
	}
}
