package inventory

import (
	"fmt"
	"slices"
)

// AddToGroup puts a host in a group while a play runs, as Ansible's group_by does: the group
// and its parents are made when missing, the group becomes a child of each parent, and the
// host leaves ungrouped. It reports whether anything changed (the host was not in the group,
// or a parent or a parent's link is new), which is what group_by's result says. Groups made
// this way have no variables. Not safe for concurrent use.
func (inv *Inventory) AddToGroup(host, name string, parents []string) (bool, error) {
	h, ok := inv.byName[host]
	if !ok {
		return false, fmt.Errorf("group_by: host %q is not in the inventory", host)
	}
	changed := false
	for _, p := range parents {
		if inv.groups[p] == nil && inv.Groups[p] == nil {
			changed = true
		}
		pg := inv.ensureGroup(p)
		if p != "all" && p != name && !slices.Contains(pg.children, name) {
			pg.children = append(pg.children, name)
			changed = true
		}
	}
	g := inv.ensureGroup(name)
	if !slices.Contains(h.Groups, name) {
		g.addHost(host)
		changed = true
	}
	inv.regroup(h)
	return changed, nil
}

func (inv *Inventory) ensureGroup(name string) *group {
	if inv.groups == nil {
		inv.groups = map[string]*group{}
	}
	g := inv.groups[name]
	if g == nil {
		g = &group{name: name}
		inv.groups[name] = g
		inv.groupOrder = append(inv.groupOrder, name)
	}
	if inv.Groups[name] == nil {
		inv.Groups[name] = []string{}
	}
	return g
}

// regroup sets the host's groups from the group graph (every group holding it directly or
// through a child, all included) and each group's members, in the inventory's host order.
func (inv *Inventory) regroup(h *Host) {
	in := map[string]bool{"all": true}
	for n, g := range inv.groups {
		if g.hostSet[h.Name] || slices.Contains(h.Groups, n) {
			in[n] = true
		}
	}
	for grew := true; grew; {
		grew = false
		for n, g := range inv.groups {
			for _, c := range g.children {
				if in[c] && !in[n] {
					in[n], grew = true, true
				}
			}
		}
	}
	if len(in) > 2 && in["ungrouped"] {
		delete(in, "ungrouped")
		if g := inv.groups["ungrouped"]; g != nil {
			delete(g.hostSet, h.Name)
			g.hosts = slices.DeleteFunc(g.hosts, func(n string) bool { return n == h.Name })
		}
	}
	h.Groups = h.Groups[:0:0]
	for n := range in {
		h.Groups = append(h.Groups, n)
	}
	slices.Sort(h.Groups)
	for n := range inv.Groups {
		var members []string
		for _, x := range inv.Hosts {
			if slices.Contains(x.Groups, n) {
				members = append(members, x.Name)
			}
		}
		inv.Groups[n] = members
		if members == nil {
			inv.Groups[n] = []string{}
		}
	}
	inv.orderMembers()
}
