package playbooks

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var playKeys = []string{
	"name", "hosts", "serial", "become", "become_user", "vars", "gather_facts", "tasks",
	"handlers", "pre_tasks", "post_tasks", "any_errors_fatal", "max_fail_percentage",
	"vars_files", "roles", "remote_user", "environment", "tags", "ignore_unreachable", "connection",
	"no_log", "ignore_errors", "check_mode", "strategy", "order", "become_method", "collections",
	"gather_subset", "gather_timeout", "diff",
}

// Load reads and validates a playbook file.
func Load(path string) (*Playbook, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("read playbook: %v", err), Err: err}
	}
	return Parse(path, data)
}

// Parse validates a playbook held in memory; file names it in errors.
func Parse(file string, data []byte) (*Playbook, error) {
	root, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	ld := &loader{base: filepath.Dir(file), stack: []string{file}}
	d := ld.decoder(file)
	plays, err := d.playbook(root)
	if err != nil {
		return nil, err
	}
	return &Playbook{File: file, Plays: plays, Warnings: ld.warnings}, nil
}

// playbook decodes the plays of one playbook file; import_playbook brings in another's.
func (d *decoder) playbook(root *yaml.Node) ([]*Play, error) {
	items, err := d.sequence(root, "a playbook")
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, d.errAt(root, "the playbook has no plays")
	}
	var plays []*Play
	for _, it := range items {
		if imp, err := d.importPlaybook(it); err != nil || imp != nil {
			if err != nil {
				return nil, err
			}
			plays = append(plays, imp...)
			continue
		}
		p, err := d.play(it)
		if err != nil {
			return nil, err
		}
		plays = append(plays, p)
	}
	return plays, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// parseYAML decodes the single YAML document of a playbook into a node tree.
func parseYAML(file string, data []byte) (root *yaml.Node, err error) {
	defer func() {
		// yaml.v3 has panicked on hostile input before; a playbook must never crash kupgrade.
		if r := recover(); r != nil {
			root, err = nil, &Error{File: file, Msg: fmt.Sprintf("invalid YAML: %v", r)}
		}
	}()
	if data, err = unvault(file, data); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: file, Msg: "the playbook is empty"}
		}
		e := &Error{File: file, Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: "), Err: err}
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Column = 1
			e.Msg = "invalid YAML: " + strings.TrimPrefix(err.Error(), m[0])
		}
		return nil, e
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		line := next.Line
		if err != nil {
			line = 0
		}
		return nil, &Error{File: file, Line: line, Column: 1, Msg: "a playbook is one YAML document; found another"}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, &Error{File: file, Msg: "the playbook is empty"}
	}
	if err := unvaultValues(file, doc.Content[0]); err != nil {
		return nil, err
	}
	return doc.Content[0], nil
}

func (d *decoder) play(n *yaml.Node) (*Play, error) {
	n, err := d.deref(n)
	if err != nil {
		return nil, err
	}
	pairs, err := d.mapping(n, "a play")
	if err != nil {
		return nil, err
	}
	p := &Play{File: d.file, Line: n.Line, Column: n.Column, GatherFacts: true}
	keys := map[string]*pair{}
	for i := range pairs {
		keys[pairs[i].key] = &pairs[i]
	}
	if k := keys["name"]; k != nil {
		if p.Name, err = d.str(k.v, "name of a play"); err != nil {
			return nil, err
		}
	}
	label := "a play"
	if p.Name != "" {
		label = fmt.Sprintf("play %q", clip(p.Name, 60))
	}
	tc := taskCtx{what: "task"}
	d.ld.play = &playLoad{play: p, seen: map[string]bool{}, tc: tc, handlerFiles: map[string]bool{}}
	// Handlers first: a role's handlers are added to the play's as the role is read.
	if k := keys["handlers"]; k != nil {
		if err := d.playKey(p, k, label, tc); err != nil {
			return nil, err
		}
	}
	for i := range pairs {
		k := &pairs[i]
		if !slices.Contains(playKeys, k.key) {
			return nil, d.unknownPlayKey(k, label)
		}
		if k.key == "handlers" {
			continue
		}
		if err := d.playKey(p, k, label, tc); err != nil {
			return nil, err
		}
	}
	p.Tasks = flushBetween(p.Tasks)
	if p.Hosts == "" {
		return nil, d.errAt(n, "%s has no hosts; say which hosts it runs on (hosts: all)", label)
	}
	return p, nil
}

func (d *decoder) playKey(p *Play, k *pair, label string, tc taskCtx) error {
	var err error
	where := k.key + " of " + label
	if dyn, err := d.templated(&p.Templated, templatedPlayKeys, k.key, k.v, where); dyn || err != nil {
		return err
	}
	switch k.key {
	case "hosts":
		var hosts []string
		if hosts, _, err = d.strList(k.v, where); err == nil {
			p.Hosts = strings.Join(hosts, ":")
		}
	case "serial":
		p.Serial, err = d.serial(k.v, where)
	case "become":
		p.Become, err = d.boolPtr(k.v, where)
	case "become_user":
		p.BecomeUser, err = d.templateStr(k.v, where)
	case "vars":
		p.Vars, err = d.varMap(k.v, where)
	case "gather_facts":
		p.GatherFacts, err = d.boolean(k.v, where)
	case "any_errors_fatal":
		p.AnyErrorsFatal, err = d.boolean(k.v, where)
	case "max_fail_percentage":
		p.MaxFailPercentage, err = d.percentage(k.v, where)
	case "pre_tasks", "tasks", "post_tasks":
		var list []*Task
		if list, err = d.tasks(k.v, where, tc); err == nil {
			p.Tasks = mergeTasks(p.Tasks, list, k.key)
		}
	case "handlers":
		htc := tc
		htc.what = "handler"
		var hs []*Task
		if hs, err = d.tasks(k.v, where, htc); err == nil {
			p.Handlers = append(hs, p.Handlers...)
		}
	default:
		err = d.playKeyMore(p, k, where, tc)
	}
	return err
}

// mergeTasks keeps pre_tasks, tasks, post_tasks in that order whatever order the keys came in.
func mergeTasks(have, list []*Task, key string) []*Task {
	for _, t := range list {
		t.phase = key
	}
	all := append(have, list...)
	order := map[string]int{"pre_tasks": 0, "roles": 1, "tasks": 2, "post_tasks": 3}
	slices.SortStableFunc(all, func(a, b *Task) int { return order[a.phase] - order[b.phase] })
	return all
}

var (
	serialNumber  = regexp.MustCompile(`^[0-9]+$`)
	serialPercent = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?%$`)
)

// serial reads a batch size: a number, a percentage, or a list of them.
func (d *decoder) serial(n *yaml.Node, where string) ([]string, error) {
	list, nodes, err := d.strList(n, where)
	if err != nil {
		return nil, err
	}
	for i, s := range list {
		s = strings.TrimSpace(s)
		if strings.Contains(s, "{{") { // rendered with the play's vars when the play starts
			if err := d.checkTemplate(nodes[i], s, where); err != nil {
				return nil, err
			}
			continue
		}
		ok := serialNumber.MatchString(s) && strings.Trim(s, "0") != ""
		if serialPercent.MatchString(s) {
			f, _ := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
			ok = f > 0 && f <= 100
		}
		if !ok {
			return nil, d.errAt(nodes[i], `%s must be a number, a percentage like "30%%", or a list of them; not %q`, where, clip(s, 40))
		}
		list[i] = s
	}
	return list, nil
}

func (d *decoder) percentage(n *yaml.Node, where string) (*float64, error) {
	s, err := d.str(n, where)
	if err != nil {
		return nil, err
	}
	f, perr := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if perr != nil || f < 0 || f > 100 {
		return nil, d.errAt(n, "%s must be a percentage from 0 to 100, not %q", where, clip(s, 40))
	}
	return &f, nil
}
