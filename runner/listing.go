package runner

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
)

// ListPlays writes what ansible-playbook's --list-hosts and --list-tasks write, running nothing:
// each play with its tags, then its pattern and the hosts it would run on (po's limit applied),
// then the tasks --tags and --skip-tags select, each with its tags and the play's.
func ListPlays(w io.Writer, pb *playbooks.Playbook, inv *inventory.Inventory, po PlayOptions, hosts, tasks bool) error {
	e := &playExec{inv: inv, po: po}
	var b strings.Builder
	fmt.Fprintf(&b, "\nplaybook: %s\n", shortPath(pb.File))
	for i, p := range pb.Plays {
		name := p.Name
		if name == "" {
			name = p.Hosts
		}
		fmt.Fprintf(&b, "\n  play #%d (%s): %s\tTAGS: [%s]\n", i+1, p.Hosts, name, strings.Join(sortedSet(p.Tags), ","))
		if hosts {
			hs, err := e.selectHosts(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "    pattern: ['%s']\n    hosts (%d):\n", p.Hosts, len(hs))
			for _, h := range hs {
				fmt.Fprintf(&b, "      %s\n", h.Name)
			}
		}
		if tasks {
			b.WriteString("    tasks:\n")
			listTasks(&b, p.Tasks, p.Tags, "", po)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// listTasks writes the tasks of ts that the tags select, a block's own tasks with its tags (as
// Ansible's listing, not its rescue and always).
func listTasks(b *strings.Builder, ts []*playbooks.Task, tags []string, prefix string, po PlayOptions) {
	for _, t := range ts {
		all := append(slices.Clip(tags), t.Tags...)
		if t.IsBlock() {
			sub := prefix
			if t.Role != nil {
				sub = t.Role.Name + " : "
			}
			listTasks(b, t.Block, all, sub, po)
			continue
		}
		if selected(all, po.Tags, po.SkipTags) {
			fmt.Fprintf(b, "      %s%s\tTAGS: [%s]\n", prefix, t.Label(), strings.Join(sortedSet(all), ", "))
		}
	}
}

// sortedSet is the distinct strings of s in order.
func sortedSet(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

// shortPath is p relative to the working folder when it lies under it, as a user types it.
func shortPath(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}
