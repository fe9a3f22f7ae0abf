package inventory

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
)

// FuzzLoad writes arbitrary bytes as an inventory and loads it: Load must never panic, must fail
// only with a positioned *Error, and whatever it accepts must survive every accessor, Select and
// both renderings. The seed corpus is in testdata/fuzz/FuzzLoad.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("all:\n  hosts:\n    h1:\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "inventory.yml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		inv, err := Load(path)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, fault.ErrBadInput) {
				t.Fatalf("error %T is not a bad-input *Error: %v", err, err)
			}
			if e.Line < 1 || e.Column < 1 {
				t.Fatalf("error without a place: %v", err)
			}
			return
		}
		checkInventory(t, inv)
	})
}

func checkInventory(t *testing.T, inv *Inventory) {
	t.Helper()
	seen := map[string]bool{}
	for _, h := range inv.Hosts {
		if seen[h.Name] {
			t.Fatalf("host %q listed twice", h.Name)
		}
		seen[h.Name] = true
		if p := h.Port(); p < 1 || p > 65535 {
			t.Fatalf("%s: port %d", h.Name, p)
		}
		_, _, _, _, _, _ = h.Address(), h.User(), h.KeyFile(), h.Become(), h.BecomeUser(), h.ProxyJump()
		switch h.Personality() {
		case "", "controller", "worker", "storage":
		default:
			t.Fatalf("%s: personality %q", h.Name, h.Personality())
		}
	}
	if len(inv.Groups["all"]) != len(inv.Hosts) {
		t.Fatalf("all holds %d hosts, inventory %d", len(inv.Groups["all"]), len(inv.Hosts))
	}
	_, _, _ = inv.Cluster(), inv.KnownHosts(), inv.Controllers()
	for _, pattern := range []string{"", "!ungrouped", "*:&all"} {
		hosts, err := inv.Select(pattern)
		if err != nil {
			continue
		}
		if err := WriteTable(io.Discard, hosts); err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(JSON(hosts)); err != nil {
			t.Fatalf("JSON of an accepted inventory does not encode: %v", err)
		}
	}
	for _, h := range inv.Hosts {
		if got, err := inv.Select(h.Name); err != nil || len(got) == 0 {
			t.Fatalf("Select(%q) of an existing host: %v, %v", h.Name, got, err)
		}
		break
	}
}

// FuzzSelect feeds arbitrary --limit patterns to a fixed inventory: no panic, errors are
// BadInput, results are hosts of the inventory, each once.
func FuzzSelect(f *testing.F) {
	for _, p := range []string{"all", "controllers:!worker-1", "~w.*", "worker-[01]", "a,b:&c", "!"} {
		f.Add(p)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "inventory.yml")
	if err := os.WriteFile(path, []byte(limitInventory), 0o644); err != nil {
		f.Fatal(err)
	}
	inv, err := Load(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		hosts, err := inv.Select(pattern)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, fault.ErrBadInput) {
				t.Fatalf("error %T is not a bad-input *Error: %v", err, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, h := range hosts {
			if _, ok := inv.Host(h.Name); !ok || seen[h.Name] {
				t.Fatalf("Select(%q) returned %q twice or from nowhere", pattern, h.Name)
			}
			seen[h.Name] = true
		}
	})
}
