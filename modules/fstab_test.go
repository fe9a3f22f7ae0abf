package modules

import (
	"encoding/json"
	"os"
	"testing"
)

// TestFstabIsAnsibles replays cases recorded from ansible.posix's mount module: the fstab it
// wrote for each set (state present or mounted) and unset (absent), and whether it changed.
func TestFstabIsAnsibles(t *testing.T) {
	b, err := os.ReadFile("testdata/fstab_ansible.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Fstab string
		Cases []struct {
			Name    string
			Args    map[string]any
			Changed bool
			Out     string
			Unset   bool
		}
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	for _, c := range rec.Cases {
		a := readMountArgs(c.Args)
		a.name = ArgStr(c.Args, "name")
		out, changed := setFstab([]byte(rec.Fstab), a)
		if c.Unset {
			out, changed = unsetFstab([]byte(rec.Fstab), a)
		}
		if !changed {
			out = rec.Fstab
		}
		if out != c.Out || changed != c.Changed {
			t.Errorf("%s: changed %v\n%q\nAnsible: changed %v\n%q", c.Name, changed, out, c.Changed, c.Out)
		}
	}
}
