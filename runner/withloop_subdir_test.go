package runner

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFirstFoundSearchesTheActionsFolder: with_first_found looks in the folder Ansible's task
// executor picks from the action (vars/ for include_vars, templates/ for template, else files/)
// before the role's own folder, as geerlingguy's roles rely on (include_vars: "{{ item }}"
// with_first_found: [Debian.yml]).
func TestFirstFoundSearchesTheActionsFolder(t *testing.T) {
	role := t.TempDir()
	for _, p := range []string{"vars/Debian.yml", "templates/a.j2", "files/Debian.yml"} {
		if err := os.MkdirAll(filepath.Join(role, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(role, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ module, file, want string }{
		{"include_vars", "Debian.yml", "vars/Debian.yml"},
		{"template", "a.j2", "templates/a.j2"},
		{"copy", "Debian.yml", "files/Debian.yml"},
	} {
		got, err := firstFound([]any{"missing.yml", c.file}, fileFinder{roleDir: role, sub: loopSubdir(c.module)})
		if err != nil || len(got) != 1 || got[0] != filepath.Join(role, c.want) {
			t.Errorf("%s: first_found = %v, %v; want %s", c.module, got, err, c.want)
		}
	}
}
