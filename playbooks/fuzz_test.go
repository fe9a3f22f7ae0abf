package playbooks

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/jinja"
)

// FuzzParse feeds arbitrary bytes to the loader, and whatever loads to the templating: neither
// may panic, and every error must be a bad-input error with a message.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("*.yml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(validPlaybook))
	f.Fuzz(func(t *testing.T, data []byte) {
		pb, err := Parse("fuzz.yml", data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			if _, ok := err.(*Error); !ok || !errors.Is(err, fault.ErrBadInput) {
				t.Fatalf("error %T is not bad input: %v", err, err)
			}
			return
		}
		vars := map[string]any{"x": 1, "to_version": "v1.30.2", "inventory_hostname": "h"}
		for _, p := range pb.Plays {
			for _, task := range p.Tasks {
				_, _ = jinja.RenderValue(task.Args, vars)
				for _, c := range task.When {
					_, _ = jinja.Cond(c, vars)
				}
			}
		}
	})
}
