package runner

import (
	"strings"

	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/playbooks"
)

// displayName renders the {{ }} in a play or task name with the play's vars and the extra vars,
// as Ansible shows "Upgrade the control plane to v1.30.1". A name that needs host variables (or
// does not render) is shown as written: names are for people, never a reason to fail.
func displayName(name string, p *playbooks.Play, extra map[string]any) string {
	if !strings.Contains(name, "{{") {
		return name
	}
	vars := make(map[string]any, len(p.Vars)+len(extra))
	for k, v := range p.Vars {
		vars[k] = v
	}
	for k, v := range extra {
		vars[k] = v
	}
	s, err := jinja.RenderString(name, vars)
	if err != nil {
		return name
	}
	return s
}

// renameTasks renders the display names of ts and of the tasks inside their blocks.
func renameTasks(ts []*ctask, p *playbooks.Play, extra map[string]any) {
	for _, t := range ts {
		t.name = displayName(t.name, p, extra)
		renameTasks(t.block, p, extra)
		renameTasks(t.rescue, p, extra)
		renameTasks(t.always, p, extra)
	}
}
