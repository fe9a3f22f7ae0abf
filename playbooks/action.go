package playbooks

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// actions are the task keys that take a module's place but are run by the engine itself.
var actions = []string{"import_tasks", "include_tasks", "import_role", "include_role", "meta", "include_vars"}

var metaActions = []string{"flush_handlers", "end_play", "end_host", "end_batch", "noop"}

// roleEntryKeys are the keywords a roles: entry may carry besides its name and params.
var roleEntryKeys = []string{"role", "name", "vars", "when", "tags", "become", "become_user", "environment"}

// roleList decodes a play's roles: or a role's dependencies.
func (d *decoder) roleList(n *yaml.Node, where string) ([]roleSpec, error) {
	items, err := d.sequence(n, where)
	if err != nil {
		return nil, err
	}
	out := make([]roleSpec, 0, len(items))
	for _, it := range items {
		it, err := d.deref(it)
		if err != nil {
			return nil, err
		}
		s := roleSpec{at: it}
		if it.Kind == yaml.ScalarNode {
			s.name = it.Value
		} else if err := d.roleEntry(it, &s, where); err != nil {
			return nil, err
		}
		if s.name == "" {
			return nil, d.errAt(it, "an entry of %s names no role (role: NAME)", where)
		}
		out = append(out, s)
	}
	return out, nil
}

func (d *decoder) roleEntry(n *yaml.Node, s *roleSpec, where string) error {
	pairs, err := d.mapping(n, "an entry of "+where)
	if err != nil {
		return err
	}
	var keys []pair
	for _, p := range pairs {
		switch {
		case p.key == "role" || p.key == "name":
			s.name, err = d.str(p.v, "role name")
		case p.key == "vars":
			var v map[string]any
			if v, err = d.varMap(p.v, "vars of role"); err == nil {
				s.params = merged(s.params, v)
			}
		case p.key == "when":
			s.when, err = d.conditions(p.v, "when of role")
		case p.key == "tags":
			s.tags, err = d.tags(p.v, "tags of role")
		case slices.Contains(roleEntryKeys, p.key):
			keys = append(keys, p)
		case slices.Contains(ansibleTaskKeys, p.key):
			err = d.errAt(p.k, "%q on a role is not supported by kupgrade", p.key)
		case !namePattern.MatchString(p.key):
			err = d.errAt(p.k, "%q in %s is not a valid parameter name", p.key, where)
		default:
			var v any
			if v, err = d.value(p.v); err == nil {
				s.params = merged(s.params, map[string]any{p.key: v})
			}
		}
		if err != nil {
			return err
		}
	}
	if len(keys) > 0 {
		var kerr error
		s.extra = func(t *Task) {
			for i := range keys {
				if err := d.taskKey(t, &keys[i], taskCtx{}, func() string { return "role " + s.name }); err != nil && kerr == nil {
					kerr = err
				}
			}
		}
		// Decode once now so that a mistake is reported; the closure reapplies it to the block.
		s.extra(&Task{})
		return kerr
	}
	return nil
}

// action decodes an import_*, include_* or meta task: the key sat where a module would.
func (d *decoder) action(t *Task, act *pair, c taskCtx, label func() string) error {
	name := normaliseModule(act.key)
	switch name {
	case "meta":
		s, err := d.str(act.v, "meta")
		if err == nil && !slices.Contains(metaActions, s) {
			err = d.errAt(act.v, "meta: %s is not supported by kupgrade (it runs %s)", s, strings.Join(metaActions, ", "))
		}
		t.Meta = s
		return err
	case "import_tasks", "include_tasks":
		return d.tasksAction(t, act, name, c)
	case "include_vars":
		return d.includeVars(t, act)
	}
	return d.roleAction(t, act, name, c)
}

func (d *decoder) tasksAction(t *Task, act *pair, name string, c taskCtx) error {
	args := map[string]any{}
	nodes := map[string]*yaml.Node{}
	if v, err := d.deref(act.v); err != nil {
		return err
	} else if v.Kind == yaml.ScalarNode {
		args["file"], nodes["file"] = v.Value, v
	} else if err := d.argMap(v, name, args, nodes); err != nil {
		return err
	}
	for k := range args {
		if k != "file" && k != "_raw_params" {
			return d.errAt(nodes[k], "%s option %q is not supported by kupgrade (it takes file)", name, k)
		}
	}
	file, _ := args["file"].(string)
	if file == "" {
		file, _ = args["_raw_params"].(string)
	}
	if file == "" {
		return d.errAt(act.v, "%s needs a file name", name)
	}
	inc := &Include{File: file, Dirs: d.taskDirs()}
	if !strings.Contains(file, "{{") {
		path, ok := find(file, inc.Dirs)
		if !ok {
			return d.errAt(act.v, "%s: %s not found in %s", name, file, strings.Join(inc.Dirs, ", "))
		}
		list, err := d.taskFile(act.v, path, name, c)
		if err != nil {
			return err
		}
		inc.Tasks = list
	} else if name == "import_tasks" {
		return d.errAt(act.v, "import_tasks is static: its file name cannot use variables; use include_tasks")
	}
	if name == "import_tasks" {
		t.Block = inc.Tasks
		return nil
	}
	t.Include = inc
	return nil
}

var roleArgs = []string{"name", "tasks_from", "vars_from", "defaults_from", "handlers_from", "allow_duplicates", "public", "rolespec_validate"}

func (d *decoder) roleAction(t *Task, act *pair, name string, c taskCtx) error {
	args := map[string]any{}
	nodes := map[string]*yaml.Node{}
	if err := d.argMap(act.v, name, args, nodes); err != nil {
		return err
	}
	s := roleSpec{at: act.k, from: map[string]string{}, public: name == "import_role", dedup: false}
	for k, v := range args {
		if !slices.Contains(roleArgs, k) {
			return d.errAt(nodes[k], "%s option %q is not supported by kupgrade (it takes %s)", name, k, strings.Join(roleArgs, ", "))
		}
		str := fmt.Sprint(v)
		switch k {
		case "name":
			s.name = str
		case "public":
			s.public = name == "import_role" || argTrue(str)
		case "tasks_from", "vars_from", "defaults_from", "handlers_from":
			s.from[strings.TrimSuffix(k, "_from")] = str
		}
	}
	if s.name == "" || strings.Contains(s.name, "{{") {
		return d.errAt(act.k, "%s needs the role's name (a templated name is not supported by kupgrade)", name)
	}
	b, err := d.loadRole(s, c)
	if err != nil {
		return err
	}
	if name == "import_role" {
		t.Block = []*Task{b}
		return nil
	}
	t.Include = &Include{Tasks: []*Task{b}, Public: s.public}
	return nil
}

// includeVars decodes include_vars: a file (free-form or file:), and name: to put its
// variables under one. The runner reads the file when the task runs, looking in the role's
// vars/, beside the tasks file, then beside the playbook (Args["_search"]).
func (d *decoder) includeVars(t *Task, act *pair) error {
	args := map[string]any{}
	nodes := map[string]*yaml.Node{}
	if v, err := d.deref(act.v); err != nil {
		return err
	} else if v.Kind == yaml.ScalarNode {
		if kv, err := splitKeyValues(v.Value); err == nil && kv["file"] != "" {
			for k, s := range kv {
				args[k], nodes[k] = s, v
			}
		} else {
			args["file"], nodes["file"] = v.Value, v
		}
	} else if err := d.argMap(v, "include_vars", args, nodes); err != nil {
		return err
	}
	for k := range args {
		if k != "file" && k != "name" {
			return d.errAt(nodes[k], "include_vars option %q is not supported by kupgrade (it takes file, name)", k)
		}
	}
	if s, _ := args["file"].(string); s == "" {
		return d.errAt(act.v, "include_vars needs a file")
	}
	if err := d.checkArgTemplates(act.v, args, "include_vars"); err != nil {
		return err
	}
	var search []any
	if d.role != nil {
		search = append(search, filepath.Join(d.role.Dir, "vars"))
	}
	for _, dir := range d.taskDirs() {
		search = append(search, dir)
	}
	args["_search"] = search
	t.Module, t.Args = "include_vars", args
	return nil
}

func argTrue(s string) bool {
	return slices.Contains([]string{"true", "yes", "on", "y", "1", "True"}, s)
}
