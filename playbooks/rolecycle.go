package playbooks

import (
	"fmt"
	"path/filepath"
	"strings"
)

// roleLink is a role being placed and where it was named, for the chain of a dependency cycle.
type roleLink struct {
	dir, name string
	at        string // file:line that named it
}

// enterRole records that the role in dir is being placed (its meta dependencies, then its
// tasks); one already being placed is a cycle, refused with the chain that leads back to it.
// Without this, roles that depend on each other are placed until the file bound is hit (with
// allow_duplicates) or the cycle is silently cut.
func (d *decoder) enterRole(dir string, s roleSpec) error {
	here := roleLink{dir: dir, name: s.name, at: d.where(s)}
	for i, l := range d.ld.roles {
		if l.dir != dir {
			continue
		}
		chain := make([]string, 0, len(d.ld.roles)-i+1)
		for _, c := range append(d.ld.roles[i:], here) {
			chain = append(chain, fmt.Sprintf("%s (%s)", c.name, c.at))
		}
		return d.errAt(s.at, "role %q depends on itself: %s", s.name, strings.Join(chain, " -> "))
	}
	d.ld.roles = append(d.ld.roles, here)
	return nil
}

func (d *decoder) leaveRole() { d.ld.roles = d.ld.roles[:len(d.ld.roles)-1] }

// where is the file:line that names a role, the file relative to the playbook's folder.
func (d *decoder) where(s roleSpec) string {
	file := d.file
	if rel, err := filepath.Rel(d.ld.base, file); err == nil && !strings.HasPrefix(rel, "..") {
		file = rel
	}
	if s.at == nil {
		return file
	}
	return fmt.Sprintf("%s:%d", file, s.at.Line)
}
