package upgrade

import (
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/playbooks"
)

// tasksOf lists the tasks of pb in the order they run, blocks flattened, with the command of
// each task that runs one.
func tasksOf(pb *playbooks.Playbook) []PlannedTask {
	var out []PlannedTask
	var add func(ts []*playbooks.Task)
	add = func(ts []*playbooks.Task) {
		for _, t := range ts {
			if t.IsBlock() {
				add(t.Block)
				add(t.Rescue)
				add(t.Always)
				continue
			}
			out = append(out, PlannedTask{Name: t.Label(), Module: t.Module, Command: commandOf(t)})
		}
	}
	for _, play := range pb.Plays {
		add(play.Tasks)
	}
	return out
}

// rendered is ts with each name and command rendered with the step's variables (to_version,
// from_version, cluster, kubeadm_timeout), as the operator would see them run; one that needs
// a variable known only on the host (a fact, a registered result) stays as written.
func rendered(ts []PlannedTask, vars map[string]any) []PlannedTask {
	for i, t := range ts {
		if s, err := jinja.RenderString(t.Name, vars); err == nil {
			ts[i].Name = s
		}
		if s, err := jinja.RenderString(t.Command, vars); err == nil {
			ts[i].Command = strings.TrimSpace(s)
		}
	}
	return ts
}

// commandOf is the command line a command, shell or raw task runs, as written; "" for others.
func commandOf(t *playbooks.Task) string {
	switch t.Module {
	case "command", "shell", "raw":
	default:
		return ""
	}
	for _, k := range []string{"_raw_params", "cmd"} {
		if s, ok := t.Args[k].(string); ok && s != "" {
			return s
		}
	}
	if argv, ok := t.Args["argv"].([]any); ok {
		parts := make([]string, len(argv))
		for i, a := range argv {
			parts[i] = fmt.Sprint(a)
		}
		return strings.Join(parts, " ")
	}
	return ""
}
