package inventory

import "slices"

// membersInOrder lists a group's hosts in the order ansible-core's Group.get_hosts gives them,
// the order of groups['name'] in a playbook: the group's own hosts in the order they were
// added, then its children's, then theirs (level by level, each level in the order the
// children were named), each host once. all keeps the inventory's host order; it is how
// Ansible lists it too. exists filters out names that are not hosts of the inventory.
func membersInOrder(groups map[string]*group, name string, exists func(string) bool) []string {
	out := []string{}
	seenHost := map[string]bool{}
	seenGroup := map[string]bool{name: true}
	level := []string{name}
	for len(level) > 0 {
		var next []string
		for _, gname := range level {
			g := groups[gname]
			if g == nil {
				continue
			}
			for _, h := range g.hosts {
				if !seenHost[h] && exists(h) {
					seenHost[h] = true
					out = append(out, h)
				}
			}
			for _, c := range g.children {
				if !seenGroup[c] {
					seenGroup[c] = true
					next = append(next, c)
				}
			}
		}
		level = next
	}
	return out
}

// orderMembers sets every group's members but all's in Ansible's order (membersInOrder); a
// host counts when its Groups name the group, so both views agree.
func (inv *Inventory) orderMembers() {
	for name := range inv.Groups {
		if name == "all" || inv.groups[name] == nil {
			continue
		}
		inv.Groups[name] = membersInOrder(inv.groups, name, func(h string) bool {
			x := inv.byName[h]
			return x != nil && slices.Contains(x.Groups, name)
		})
	}
}
