package playbooks

import (
	"bufio"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// roleSpec is one use of a role: a roles: entry, a meta dependency, import_role or include_role.
type roleSpec struct {
	name   string
	at     *yaml.Node
	params map[string]any
	when   []string
	tags   []string
	// from names the tasks_from, vars_from, defaults_from and handlers_from files.
	from   map[string]string
	public bool // defaults and vars are the play's (roles:, import_role), not the role's alone
	dedup  bool // a role already placed with the same params is not placed again
	extra  func(*Task)
}

// roleDirs are where a role is looked for, in Ansible's order: roles/ beside the playbook,
// ANSIBLE_ROLES_PATH, roles_path of ansible.cfg, the default folders, beside the playbook.
func (d *decoder) roleDirs() []string {
	dirs := []string{filepath.Join(d.ld.base, "roles")}
	if d.role != nil {
		dirs = append(dirs, filepath.Dir(d.role.Dir))
	}
	dirs = append(dirs, filepath.SplitList(os.Getenv("ANSIBLE_ROLES_PATH"))...)
	dirs = append(dirs, cfgRolesPath()...)
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".ansible", "roles"))
	}
	dirs = append(dirs, "/usr/share/ansible/roles", "/etc/ansible/roles", d.ld.base)
	return slices.DeleteFunc(dirs, func(s string) bool { return s == "" })
}

// cfgRolesPath reads roles_path from the ansible.cfg Ansible would read (ANSIBLE_CONFIG,
// ./ansible.cfg, ~/.ansible.cfg, /etc/ansible/ansible.cfg); relative entries are relative to it.
func cfgRolesPath() []string {
	cands := []string{os.Getenv("ANSIBLE_CONFIG"), "ansible.cfg"}
	if home, err := os.UserHomeDir(); err == nil {
		cands = append(cands, filepath.Join(home, ".ansible.cfg"))
	}
	for _, c := range append(cands, "/etc/ansible/ansible.cfg") {
		f, err := os.Open(c)
		if c == "" || err != nil {
			continue
		}
		defer f.Close()
		section := ""
		for sc := bufio.NewScanner(f); sc.Scan(); {
			line := strings.TrimSpace(sc.Text())
			if strings.HasPrefix(line, "[") {
				section = strings.Trim(line, "[] ")
			}
			k, v, ok := strings.Cut(line, "=")
			if !ok || section != "defaults" || strings.TrimSpace(k) != "roles_path" {
				continue
			}
			var out []string
			for _, p := range filepath.SplitList(strings.TrimSpace(v)) {
				if !filepath.IsAbs(p) {
					p = filepath.Join(filepath.Dir(c), p)
				}
				out = append(out, p)
			}
			return out
		}
		return nil
	}
	return nil
}

// findRole looks for the role as Ansible does: NAME under each roles folder, then beside the
// playbook (a name with a slash, as Kubespray writes kubernetes/node, is a path under them),
// then NAME as a path of its own.
func (d *decoder) findRole(s roleSpec) (string, error) {
	dirs := append(d.roleDirs(), d.ld.base)
	if !filepath.IsAbs(s.name) {
		for _, dir := range dirs {
			p := filepath.Join(dir, s.name)
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return p, nil
			}
		}
	} else if st, err := os.Stat(s.name); err == nil && st.IsDir() {
		return s.name, nil
	}
	if strings.Count(s.name, ".") >= 2 && !strings.ContainsRune(s.name, '/') {
		return "", d.errAt(s.at, "role %q: roles from collections are not supported by kupgrade; put the role in roles/", s.name)
	}
	return "", d.errAt(s.at, "role %q not found; looked in %s", s.name, strings.Join(dirs, ", "))
}

// loadRole places one use of a role: its meta dependencies first, then its tasks, as a block
// that carries the use's when and tags. It returns nil when the role was already placed.
func (d *decoder) loadRole(s roleSpec, c taskCtx) (*Task, error) {
	dir, err := d.findRole(s)
	if err != nil {
		return nil, err
	}
	if err := d.enterRole(dir, s); err != nil {
		return nil, err
	}
	defer d.leaveRole()
	r := &Role{Name: roleName(s.name), Dir: dir, Private: !s.public}
	rd := *d
	rd.role = r
	meta, err := rd.roleMeta(s.at)
	if err != nil {
		return nil, err
	}
	pl := d.ld.play
	key, _ := json.Marshal([]any{dir, s.from, s.params})
	if s.dedup && pl.seen[string(key)] && !meta.allowDuplicates {
		return nil, nil
	}
	pl.seen[string(key)] = true
	outer := &Task{Block: []*Task{}, When: s.when, Tags: s.tags, File: d.file, Line: s.at.Line, Column: s.at.Column}
	deps := rd
	deps.file = meta.file // a dependency's errors name the meta file that lists it
	for _, dep := range meta.deps {
		dep.public, dep.dedup = s.public, true
		b, err := deps.loadRole(dep, c)
		if err != nil {
			return nil, err
		}
		if b != nil {
			outer.Block = append(outer.Block, b)
		}
	}
	inner, err := rd.roleBody(s, r, c)
	if err != nil {
		return nil, err
	}
	if s.public {
		pl.play.RoleDefaults = merged(pl.play.RoleDefaults, r.Defaults)
		pl.play.RoleVars = merged(pl.play.RoleVars, r.Vars)
	}
	outer.Block = append(outer.Block, inner)
	if s.extra != nil {
		s.extra(outer)
	}
	return outer, nil
}

func merged(into, from map[string]any) map[string]any {
	if len(from) == 0 {
		return into
	}
	if into == nil {
		into = map[string]any{}
	}
	maps.Copy(into, from)
	return into
}

// roleBody reads a role's defaults, vars, handlers and tasks.
func (d *decoder) roleBody(s roleSpec, r *Role, c taskCtx) (*Task, error) {
	var err error
	if r.Defaults, err = d.roleVarsFile(s, "defaults"); err != nil {
		return nil, err
	}
	if r.Vars, err = d.roleVarsFile(s, "vars"); err != nil {
		return nil, err
	}
	if p, ok := d.rolePart(s, "handlers"); ok && !d.ld.play.handlerFiles[p] {
		d.ld.play.handlerFiles[p] = true // a role used twice has its handlers once
		htc := taskCtx{what: "handler"}
		hs, err := d.taskFile(s.at, p, "handlers of role "+r.Name, htc)
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			if h.Name != "" {
				h.Listen = append(h.Listen, r.Name+" : "+h.Name) // notify: "role : handler"
			}
		}
		d.ld.play.play.Handlers = append(d.ld.play.play.Handlers, hs...)
	} else if !ok && s.from["handlers"] != "" {
		return nil, d.errAt(s.at, "role %s has no handlers file %q", r.Name, s.from["handlers"])
	}
	inner := &Task{Block: []*Task{}, Params: s.params, Role: r, File: d.file, Line: s.at.Line, Column: s.at.Column}
	if p, ok := d.rolePart(s, "tasks"); ok {
		if inner.Block, err = d.taskFile(s.at, p, "tasks of role "+r.Name, c); err != nil {
			return nil, err
		}
	} else if s.from["tasks"] != "" {
		return nil, d.errAt(s.at, "role %s has no tasks file %q in %s", r.Name, s.from["tasks"], filepath.Join(r.Dir, "tasks"))
	}
	return inner, nil
}

// rolePart finds tasks/main.yml (or main.yaml, main, or the *_from file) of the role.
func (d *decoder) rolePart(s roleSpec, part string) (string, bool) {
	name := "main"
	if f := s.from[part]; f != "" {
		name = f
	}
	return find(name, []string{filepath.Join(d.role.Dir, part)})
}

func (d *decoder) roleVarsFile(s roleSpec, part string) (map[string]any, error) {
	p, ok := d.rolePart(s, part)
	if !ok {
		if f := s.from[part]; f != "" {
			return nil, d.errAt(s.at, "role %s has no %s file %q", d.role.Name, part, f)
		}
		return nil, nil
	}
	return d.varsFile(s.at, p)
}

// varsFile reads a file of variables (vars_files, a role's vars and defaults).
func (d *decoder) varsFile(at *yaml.Node, path string) (map[string]any, error) {
	sub, root, err := d.open(at, path, "vars file")
	if err != nil {
		if e, ok := err.(*Error); ok && e.Msg == "the playbook is empty" {
			return nil, nil
		}
		return nil, err
	}
	return sub.varMap(root, "a vars file")
}

type roleMeta struct {
	file            string // meta/main.yml, when the role has one
	deps            []roleSpec
	allowDuplicates bool
}

// roleMeta reads meta/main.yml: dependencies and allow_duplicates (galaxy_info and the rest
// describe the role and change nothing when it runs).
func (d *decoder) roleMeta(at *yaml.Node) (roleMeta, error) {
	var m roleMeta
	p, ok := find("main", []string{filepath.Join(d.role.Dir, "meta")})
	if !ok {
		return m, nil
	}
	sub, root, err := d.open(at, p, "role meta")
	if err != nil {
		if e, ok := err.(*Error); ok && e.Msg == "the playbook is empty" {
			return m, nil
		}
		return m, err
	}
	m.file = p
	pairs, err := sub.mapping(root, "a role's meta/main.yml")
	if err != nil {
		return m, err
	}
	for _, kv := range pairs {
		switch kv.key {
		case "allow_duplicates":
			m.allowDuplicates, err = sub.boolean(kv.v, "allow_duplicates")
		case "dependencies":
			m.deps, err = sub.roleList(kv.v, "dependencies")
		}
		if err != nil {
			return m, err
		}
	}
	return m, nil
}

// roleName is the role's name as Ansible shows it: as written (kubernetes/node), except a
// path of its own (./roles/x, /srv/x), which is named by its last folder.
func roleName(name string) string {
	if filepath.IsAbs(name) || strings.HasPrefix(name, ".") {
		return filepath.Base(name)
	}
	return name
}
