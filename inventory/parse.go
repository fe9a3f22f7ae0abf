package inventory

import (
	"fmt"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/kupgrade/kupgrade/internal/typo"
)

// groupKeys are the only keys a group may hold.
var groupKeys = []string{"hosts", "children", "vars"}

type group struct {
	name     string
	at       pos
	vars     map[string]varDef // written in the inventory files
	children []string
	childAt  map[string]pos // where each child was named, to point at a cycle
	hosts    []string       // hosts named directly in this group, in file order
	hostSet  map[string]bool
	depth    int
}

// addHost adds a host once; a set, because a range like node[00001:99999] makes long lists.
func (g *group) addHost(name string) {
	if g.hostSet == nil {
		g.hostSet = map[string]bool{}
	}
	if !g.hostSet[name] {
		g.hostSet[name] = true
		g.hosts = append(g.hosts, name)
	}
}

type hostDef struct {
	name   string
	at     pos
	vars   map[string]varDef // written in the inventory files, later entries win
	source string            // the absolute path of the file that named it first
}

// varDir is what the group_vars/ and host_vars/ folders beside one inventory source hold.
type varDir struct {
	groups map[string]map[string]varDef
	hosts  map[string]map[string]varDef
}

// parser builds the group graph from the inventory files, one after the other, as Ansible's
// InventoryData does: a later file adds hosts and groups and its variables win.
type parser struct {
	file       string // the file being read, as named to the user
	source     string // the same, absolute: inventory_file of the hosts it defines
	varDirs    []varDir
	groups     map[string]*group
	groupOrder []string
	hosts      map[string]*hostDef
	hostOrder  []string
	budget     int
	warnings   []string // what Ansible also reads past with a warning (Inventory.Warnings)
}

func newParser(file string) *parser {
	p := &parser{file: file, groups: map[string]*group{}, hosts: map[string]*hostDef{}, budget: walkBudget}
	p.group("all", pos{file: file, line: 1, col: 1})
	return p
}

func (p *parser) group(name string, where pos) *group {
	g, ok := p.groups[name]
	if !ok {
		g = &group{name: name, at: where, vars: map[string]varDef{}, childAt: map[string]pos{}}
		p.groups[name] = g
		p.groupOrder = append(p.groupOrder, name)
	}
	return g
}

// deref follows aliases and charges the walk budget.
func (p *parser) deref(n *yaml.Node) (*yaml.Node, error) {
	for i := 0; n.Kind == yaml.AliasNode; i++ {
		if n.Alias == nil || i > 100 {
			return nil, at(p.file, n).errorf("", "alias *%s leads nowhere", n.Value)
		}
		n = n.Alias
	}
	p.budget--
	if p.budget < 0 {
		return nil, at(p.file, n).errorf("write the inventory without aliases that repeat whole groups",
			"the inventory is too large: its aliases expand to more than %d entries", walkBudget)
	}
	return n, nil
}

func (p *parser) document(doc *yaml.Node) error {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return &Error{File: p.file, Line: 1, Column: 1, Msg: "the inventory is empty",
			Fix: "list the hosts under all: hosts:"}
	}
	n, err := p.deref(doc.Content[0])
	if err != nil {
		return err
	}
	if n.Kind != yaml.MappingNode {
		return at(p.file, n).errorf("start the file with all: and put hosts, children and vars under it",
			"the inventory must be a map of groups, not %s", describe(n))
	}
	seen := map[string]pos{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name, err := scalarKey(p.file, k, "a group name")
		if err != nil {
			return err
		}
		if err := p.unique(seen, name, k); err != nil {
			return err
		}
		switch name {
		case "hosts", "children", "vars":
			return at(p.file, k).errorf("indent it under all: (or under a group)",
				"%q at the top of the inventory would be a group named %q", name, name)
		case "plugin":
			return at(p.file, k).errorf("write a static YAML inventory (ansible-inventory -y --list prints one)",
				"inventory plugins are not supported")
		}
		if err := p.parseGroup(p.group(name, at(p.file, k)), v); err != nil {
			return err
		}
	}
	return nil
}

// unique refuses a key written twice in one map: YAML forbids it and Ansible silently keeps the
// last, which hides half of what the user wrote.
func (p *parser) unique(seen map[string]pos, name string, k *yaml.Node) error {
	if first, dup := seen[name]; dup {
		return at(p.file, k).errorf("merge the two entries into one",
			"%q is already defined at line %d", name, first.line)
	}
	seen[name] = at(p.file, k)
	return nil
}

func (p *parser) parseGroup(g *group, n *yaml.Node) error {
	n, err := p.deref(n)
	if err != nil || isNull(n) {
		return err
	}
	if n.Kind != yaml.MappingNode {
		return at(p.file, n).errorf("write it as a map with hosts:, children: or vars:",
			"group %q must be a map, not %s", g.name, describe(n))
	}
	seen := map[string]pos{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key, err := scalarKey(p.file, k, "a key of group "+fmt.Sprintf("%q", g.name))
		if err != nil {
			return err
		}
		if err := p.unique(seen, key, k); err != nil {
			return err
		}
		switch key {
		case "hosts":
			err = p.parseHosts(g, v)
		case "children":
			err = p.parseChildren(g, v)
		case "vars":
			var vars map[string]varDef
			vars, err = p.parseVars(v, fmt.Sprintf("vars of group %q", g.name))
			for name, d := range vars {
				g.vars[name] = d
			}
		default: // Ansible's YAML plugin warns and skips the key
			p.warnings = append(p.warnings, unknownGroupKey(p.file, g.name, k).Error()+" (skipped, as Ansible skips it)")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func unknownGroupKey(file, group string, k *yaml.Node) error {
	msg := fmt.Sprintf("unknown key %q in group %q", k.Value, group)
	if c := typo.Closest(k.Value, groupKeys); c != "" {
		return at(file, k).errorf(fmt.Sprintf("did you mean %q?", c), "%s", msg)
	}
	return at(file, k).errorf("a group holds only hosts:, children: and vars:; put variables under vars:",
		"%s", msg)
}

func (p *parser) parseChildren(g *group, n *yaml.Node) error {
	n, err := p.deref(n)
	if err != nil || isNull(n) {
		return err
	}
	if n.Kind != yaml.MappingNode {
		return at(p.file, n).errorf("write children as a map: `children: {web: }`, one group per key",
			"children of group %q must be a map, not %s", g.name, describe(n))
	}
	seen := map[string]pos{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name, err := scalarKey(p.file, k, "a group name")
		if err != nil {
			return err
		}
		if err := p.unique(seen, name, k); err != nil {
			return err
		}
		if name == "all" {
			return at(p.file, k).errorf("remove it: every group is already inside all",
				"group all cannot be a child of %q", g.name)
		}
		child := p.group(name, at(p.file, k))
		if !slices.Contains(g.children, name) {
			g.children = append(g.children, name)
			g.childAt[name] = at(p.file, k)
		}
		if err := p.parseGroup(child, v); err != nil {
			return err
		}
	}
	return nil
}
