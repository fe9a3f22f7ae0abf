package inventory

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteTable prints one line per host for `kupgrade inventory list`: HOST, ADDRESS, PORT, USER,
// PERSONALITY and GROUPS (without all and ungrouped, which say nothing). "-" marks an unset value.
func WriteTable(w io.Writer, hosts []*Host) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tADDRESS\tPORT\tUSER\tPERSONALITY\tGROUPS")
	for _, h := range hosts {
		var groups []string
		for _, g := range h.Groups {
			if g != "all" && g != "ungrouped" {
				groups = append(groups, g)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", cell(h.Name), cell(h.Address()), h.Port(),
			cell(h.User()), cell(h.Personality()), cell(strings.Join(groups, ",")))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write inventory table: %w", err)
	}
	return nil
}

// cell keeps one value on one table line: tabs and newlines would break the columns.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	if strings.ContainsAny(s, "\t\n\r") {
		return strconv.Quote(s)
	}
	return s
}

// internalVars are the magic variables ansible-inventory leaves out of its output.
var internalVars = []string{"inventory_file", "inventory_dir"}

// JSON returns the document `ansible-inventory --list` prints, for these hosts: "_meta" with
// "hostvars" (each host's resolved variables, without inventory_file and inventory_dir), "all" with its "children", and one entry per group
// holding any of the hosts, with "hosts" (named directly in it) and "children" (the child groups
// that hold any of the hosts). Empty keys are left out, as ansible-inventory does. The value is
// ready for encoding/json.
func JSON(hosts []*Host) any {
	hostvars := map[string]any{}
	chosen := map[string]bool{}
	for _, h := range hosts {
		vars := make(map[string]any, len(h.Vars))
		for k, v := range h.Vars {
			if !slices.Contains(internalVars, k) {
				vars[k] = v
			}
		}
		hostvars[h.Name] = jsonSafe(vars)
		chosen[h.Name] = true
	}
	doc := map[string]any{"_meta": map[string]any{"hostvars": hostvars}}
	var inv *Inventory
	for _, h := range hosts {
		if h.inv != nil {
			inv = h.inv
			break
		}
	}
	if inv == nil {
		// hosts built by hand know their groups but not the tree: list them flat under all
		return flatJSON(doc, hosts)
	}
	holds := func(g string) bool {
		return slices.ContainsFunc(inv.Groups[g], func(h string) bool { return chosen[h] })
	}
	for _, name := range inv.groupOrder {
		if !holds(name) {
			continue
		}
		g := inv.groups[name]
		entry := map[string]any{}
		var direct, children []string
		if name != "all" {
			for _, h := range g.hosts {
				if chosen[h] {
					direct = append(direct, h)
				}
			}
		}
		for _, c := range g.children {
			if holds(c) {
				children = append(children, c)
			}
		}
		if len(direct) > 0 {
			entry["hosts"] = direct
		}
		if len(children) > 0 {
			entry["children"] = children
		}
		if len(entry) > 0 {
			doc[name] = entry
		}
	}
	return doc
}

func flatJSON(doc map[string]any, hosts []*Host) any {
	members := map[string][]string{}
	for _, h := range hosts {
		for _, g := range h.Groups {
			if g != "all" {
				members[g] = append(members[g], h.Name)
			}
		}
	}
	var children []string
	for g, hs := range members {
		doc[g] = map[string]any{"hosts": hs}
		children = append(children, g)
	}
	slices.Sort(children)
	if len(children) > 0 {
		doc["all"] = map[string]any{"children": children}
	}
	return doc
}
