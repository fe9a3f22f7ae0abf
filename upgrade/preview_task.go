package upgrade

import (
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/playbooks"
)

// plannedTask is t on host as the plan shows it: its name and command rendered with scope, a
// script cut to its first meaningful line and counted, and a note when its condition already
// says it skips (then no command), or when what it shows waits on a value known only at run time.
func plannedTask(t *playbooks.Task, host string, scope map[string]any, registered map[string]bool) PlannedTask {
	name, m1 := shown(t.Label(), scope)
	if name == "" {
		name = t.Module
	}
	cmd, m2 := shown(commandOf(t), scope)
	pt := PlannedTask{Host: host, Name: name, Module: t.Module}
	if skip, cond := skipped(t, scope); skip {
		pt.Note = "skipped: " + cond
		return pt
	} else if cond != "" {
		pt.Note = "runs if " + cond + " (decided at run time)"
	}
	pt.Command, pt.Lines = firstLine(cmd)
	if rt := runtimeNote(append(m1, m2...), registered); rt != "" {
		pt.Note = strings.TrimPrefix(pt.Note+"; "+rt, "; ")
	}
	return pt
}

// skipped evaluates t's when conditions with scope: skip when one is false; cond is the first
// one that is false, or else the first that reads a value known only at run time ("" if none).
func skipped(t *playbooks.Task, scope map[string]any) (skip bool, cond string) {
	for _, c := range t.When {
		ok, err := jinja.Cond(c, scope)
		switch {
		case err == nil && !ok:
			return true, c
		case err != nil && cond == "":
			cond = c
		}
	}
	return false, cond
}

// runtimeNote says which values a task's text waits on, and where they come from.
func runtimeNote(missing []string, registered map[string]bool) string {
	if len(missing) == 0 {
		return ""
	}
	var parts []string
	seen := map[string]bool{}
	for _, m := range missing {
		if seen[m] {
			continue
		}
		seen[m] = true
		switch {
		case registered[m]:
			parts = append(parts, m+" (registered by an earlier task)")
		case strings.HasPrefix(m, "ansible_"):
			parts = append(parts, m+" (a fact, gathered at run time)")
		default:
			parts = append(parts, m)
		}
	}
	return "known at run time: " + strings.Join(parts, ", ")
}

// firstLine is a script's first meaningful line (not blank, a comment or a `set -...` of shell
// options) and its number of lines; a one-line command comes back as it is, with 0.
func firstLine(script string) (string, int) {
	script = strings.TrimSpace(script)
	if !strings.Contains(script, "\n") {
		return script, 0
	}
	lines := strings.Split(script, "\n")
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "set -") {
			return l, len(lines)
		}
	}
	return strings.TrimSpace(lines[0]), len(lines)
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
