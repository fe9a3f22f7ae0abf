package playbooks

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

//go:embed *.yml
var shipped embed.FS

// Embedded loads a shipped playbook by name: "control-plane" or "control-plane.yml".
// A fresh copy each call, so a caller may change it freely.
func Embedded(name string) (*Playbook, error) {
	file := strings.TrimSuffix(name, ".yml") + ".yml"
	data, err := shipped.ReadFile(file)
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("no shipped playbook %q; kupgrade ships %s",
			name, strings.Join(EmbeddedNames(), ", ")), Err: err}
	}
	return Parse(file, data)
}

// EmbeddedNames lists the shipped playbooks, without ".yml", sorted.
func EmbeddedNames() []string {
	files, _ := fs.Glob(shipped, "*.yml")
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(f, ".yml")
	}
	slices.Sort(names)
	return names
}
