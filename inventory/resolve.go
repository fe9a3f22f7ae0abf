package inventory

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// link completes the group graph as Ansible does after parsing: it refuses cycles, hangs every
// parentless group under all, puts hosts that are in no group into ungrouped, and computes each
// group's depth (its longest distance from all), which orders variable precedence.
func (p *parser) link() error {
	if err := p.checkCycles(); err != nil {
		return err
	}
	parents := p.parents()
	all := p.groups["all"]
	for _, name := range p.groupOrder {
		if name != "all" && len(parents[name]) == 0 {
			all.children = append(all.children, name)
			parents[name] = []string{"all"}
		}
	}
	var ungrouped []string
	member := map[string]bool{}
	for _, name := range p.groupOrder {
		if name != "all" && name != "ungrouped" {
			for _, h := range p.groups[name].hosts {
				member[h] = true
			}
		}
	}
	for _, h := range p.hostOrder {
		if !member[h] {
			ungrouped = append(ungrouped, h)
		}
	}
	if g := p.groups["ungrouped"]; g != nil {
		// a host listed in ungrouped (an INI file's first lines) and in a group leaves ungrouped
		kept := g.hosts[:0]
		for _, h := range g.hosts {
			if !member[h] {
				kept = append(kept, h)
			} else {
				delete(g.hostSet, h)
			}
		}
		g.hosts = kept
	}
	if len(ungrouped) > 0 {
		g, existed := p.groups["ungrouped"], p.groups["ungrouped"] != nil
		if !existed {
			g = p.group("ungrouped", all.at)
			all.children = append(all.children, "ungrouped")
			parents["ungrouped"] = []string{"all"}
		}
		for _, h := range ungrouped {
			g.addHost(h)
		}
	}
	memo := map[string]int{"all": 0}
	for _, name := range p.groupOrder {
		p.groups[name].depth = depth(name, parents, memo)
	}
	return nil
}

func (p *parser) parents() map[string][]string {
	parents := map[string][]string{}
	for _, name := range p.groupOrder {
		for _, c := range p.groups[name].children {
			parents[c] = append(parents[c], name)
		}
	}
	return parents
}

func depth(name string, parents map[string][]string, memo map[string]int) int {
	if d, ok := memo[name]; ok {
		return d
	}
	d := 0
	for _, par := range parents[name] {
		d = max(d, depth(par, parents, memo)+1)
	}
	memo[name] = d
	return d
}

// checkCycles refuses a group that is its own ancestor; it points at the children entry that
// closes the loop.
func (p *parser) checkCycles() error {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(name string) error
	visit = func(name string) error {
		state[name] = onPath
		path = append(path, name)
		g := p.groups[name]
		for _, c := range g.children {
			switch state[c] {
			case onPath:
				i := slices.Index(path, c)
				loop := strings.Join(append(slices.Clone(path[i:]), c), " -> ")
				return g.childAt[c].errorf(fmt.Sprintf("remove %q from the children of %q", c, name),
					"group %q is its own ancestor: %s", c, loop)
			case unseen:
				if err := visit(c); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		state[name] = done
		return nil
	}
	for _, name := range p.groupOrder {
		if state[name] == unseen {
			if err := visit(name); err != nil {
				return err
			}
		}
	}
	return nil
}

// ancestors returns name and every group above it.
func (p *parser) ancestors(name string, parents map[string][]string, into map[string]bool) {
	if into[name] {
		return
	}
	into[name] = true
	for _, par := range parents[name] {
		p.ancestors(par, parents, into)
	}
}

// build resolves each host's groups and variables into the exported Inventory.
func (p *parser) build(path, absDir string) (*Inventory, error) {
	inv := &Inventory{Path: path, Groups: map[string][]string{}, dir: absDir, groups: p.groups,
		groupOrder: p.groupOrder, byName: map[string]*Host{}, Warnings: p.warnings}
	parents := p.parents()
	hostGroups := map[string]map[string]bool{}
	for _, gname := range p.groupOrder {
		up := map[string]bool{}
		p.ancestors(gname, parents, up)
		for _, h := range p.groups[gname].hosts {
			if hostGroups[h] == nil {
				hostGroups[h] = map[string]bool{"all": true}
			}
			for a := range up {
				hostGroups[h][a] = true
			}
		}
	}
	priority, err := p.priorities()
	if err != nil {
		return nil, err
	}
	for _, name := range p.groupOrder {
		inv.Groups[name] = []string{}
	}
	inv.Groups["ungrouped"] = []string{} // Ansible always has it, empty or not
	for _, name := range p.hostOrder {
		h, err := p.resolveHost(p.hosts[name], hostGroups[name], priority, inv)
		if err != nil {
			return nil, err
		}
		inv.Hosts = append(inv.Hosts, h)
		inv.byName[name] = h
		for _, g := range h.Groups {
			inv.Groups[g] = append(inv.Groups[g], name)
		}
	}
	inv.orderMembers()
	layers := []map[string]varDef{p.groups["all"].vars}
	for _, vd := range p.varDirs {
		layers = append(layers, vd.groups["all"])
	}
	inv.allVars = mergeDefs(layers...)
	if err := validateInventoryVars(inv.allVars); err != nil {
		return nil, err
	}
	return inv, nil
}

func (p *parser) priorities() (map[string]int, error) {
	out := map[string]int{}
	for _, name := range p.groupOrder {
		d, ok := p.groups[name].vars["ansible_group_priority"]
		if !ok {
			continue
		}
		n, ok := asInt(d.val)
		if !ok {
			return nil, d.at.errorf("write a whole number such as 10",
				"ansible_group_priority of group %q must be a number, not %v", name, d.val)
		}
		out[name] = n
		// Ansible's Group.set_variable keeps it as the priority, not as a variable.
		delete(p.groups[name].vars, "ansible_group_priority")
	}
	return out, nil
}

func (p *parser) resolveHost(hd *hostDef, in map[string]bool, priority map[string]int, inv *Inventory) (*Host, error) {
	var order []*group
	for g := range in {
		if g != "all" {
			order = append(order, p.groups[g])
		}
	}
	// Ansible's sort_groups: shallow before deep, then priority, then name; later ones win.
	slices.SortFunc(order, func(a, b *group) int {
		return cmp.Or(cmp.Compare(a.depth, b.depth), cmp.Compare(priority[a.name], priority[b.name]),
			cmp.Compare(a.name, b.name))
	})
	defs := mergeDefs(p.layers(hd, order)...)
	if err := validateHostVars(hd.name, defs); err != nil {
		return nil, err
	}
	dir := filepath.Dir(hd.source)
	if hd.source == "" {
		dir = inv.dir
	}
	h := &Host{Name: hd.name, Vars: make(map[string]any, len(defs)), dir: dir, inv: inv}
	for k, d := range defs {
		h.Vars[k] = d.val
	}
	for g := range in {
		h.Groups = append(h.Groups, g)
	}
	slices.Sort(h.Groups)
	return h, nil
}

// layers lists a host's variable sources, lowest precedence first, as Ansible's VariableManager
// stacks them: the inventory's vars of all then of the host's groups (in sort_groups order), the
// group_vars/all of each source, the group_vars/GROUP of each source (source after source, each in
// group order), the host's inventory_file and inventory_dir, its inventory vars, and the
// host_vars/HOST of each source.
func (p *parser) layers(hd *hostDef, order []*group) []map[string]varDef {
	layers := []map[string]varDef{p.groups["all"].vars}
	for _, g := range order {
		layers = append(layers, g.vars)
	}
	for _, vd := range p.varDirs {
		layers = append(layers, vd.groups["all"])
	}
	for _, vd := range p.varDirs {
		for _, g := range order {
			layers = append(layers, vd.groups[g.name])
		}
	}
	if hd.source != "" {
		at := hd.at
		layers = append(layers, map[string]varDef{"inventory_file": {val: hd.source, at: at},
			"inventory_dir": {val: filepath.Dir(hd.source), at: at}})
	}
	layers = append(layers, hd.vars)
	for _, vd := range p.varDirs {
		layers = append(layers, vd.hosts[hd.name])
	}
	return layers
}

func mergeDefs(layers ...map[string]varDef) map[string]varDef {
	out := map[string]varDef{}
	for _, l := range layers {
		for k, d := range l {
			out[k] = d
		}
	}
	return out
}
