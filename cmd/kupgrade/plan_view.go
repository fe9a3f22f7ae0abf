package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// planView is `upgrade plan -o json`: stable keys, commands as the operator types them.
type planView struct {
	Cluster     string          `json:"cluster"`
	Recorded    bool            `json:"upgrade_recorded"`
	FromVersion *string         `json:"from_version"`
	ToVersion   string          `json:"to_version"`
	Hops        []string        `json:"hops,omitempty"` // several minors: the hops, to_version last
	State       *string         `json:"state"`
	VersionsAre string          `json:"versions_are"` // "live" (read over SSH now) or "recorded"
	Hosts       []planHostView  `json:"hosts"`
	Components  []componentView `json:"components"` // kubeadm-style rows: component, host, current, target
	Steps       []planStepView  `json:"steps"`
	Refusal     *string         `json:"refusal"`
	Next        *string         `json:"next"`
	Wait        *string         `json:"wait"`
	RunAll      *string         `json:"run_all"`
	Health      *planHealth     `json:"health"` // the checks before a new upgrade, and the overrides in force
}

type planHostView struct {
	Host                string  `json:"host"`
	Personality         string  `json:"personality"`
	ControlPlaneVersion *string `json:"control_plane_version"`
	KubeletVersion      *string `json:"kubelet_version"`
}

type planStepView struct {
	Step     string          `json:"step"`
	Hop      string          `json:"hop,omitempty"` // the hop it belongs to (several minors)
	Hosts    []string        `json:"hosts"`
	Command  string          `json:"command"`
	Playbook *string         `json:"playbook"`
	Tasks    []planTaskView  `json:"tasks"`
	Checks   []planCheckView `json:"checks"`
}

// planTaskView is one task on one host: its command rendered with the host's variables (a
// script: its first meaningful line, lines its length).
type planTaskView struct {
	Host    string  `json:"host"`
	Task    string  `json:"task"`
	Module  string  `json:"module"`
	Command *string `json:"command"`
	Lines   int     `json:"lines,omitempty"`
	Note    *string `json:"note"`
}

type planCheckView struct {
	Check string  `json:"check"`
	Host  *string `json:"host"`
	OK    bool    `json:"ok"`
	Note  *string `json:"note"`
}

func (a *app) newPlanView(p *upgrade.Preview) planView {
	v := planView{Cluster: p.Cluster, Recorded: p.Exists, FromVersion: nullable(p.From), ToVersion: p.To, Hops: p.Hops,
		State: nullable(string(p.State)), VersionsAre: "recorded", Hosts: []planHostView{}, Components: components(p), Steps: []planStepView{},
		Next: nullable(a.command(p.Next)), Wait: nullable(p.Wait)}
	if p.Live {
		v.VersionsAre = "live"
	}
	if p.Refusal != nil {
		v.Refusal = nullable(a.commands(p.Refusal.Error()))
	}
	if p.Exists && p.Refusal == nil && len(p.Steps) > 1 {
		v.RunAll = nullable(a.command("kupgrade upgrade run"))
	}
	for _, h := range p.Versions {
		v.Hosts = append(v.Hosts, planHostView{Host: h.Host, Personality: string(h.Personality),
			ControlPlaneVersion: nullable(h.ControlPlane), KubeletVersion: nullable(h.Kubelet)})
	}
	for _, s := range p.Steps {
		sv := planStepView{Step: s.Step, Hop: s.Hop, Hosts: s.Hosts, Command: a.command(s.Command), Playbook: nullable(s.Playbook),
			Tasks: []planTaskView{}, Checks: []planCheckView{}}
		if sv.Hosts == nil {
			sv.Hosts = []string{}
		}
		for _, t := range s.Tasks {
			sv.Tasks = append(sv.Tasks, planTaskView{Host: t.Host, Task: t.Name, Module: t.Module,
				Command: nullable(t.Command), Lines: t.Lines, Note: nullable(t.Note)})
		}
		for _, c := range s.Checks {
			sv.Checks = append(sv.Checks, planCheckView{Check: c.Name, Host: nullable(c.Host), OK: c.OK, Note: nullable(a.commands(c.Note))})
		}
		v.Steps = append(v.Steps, sv)
	}
	return v
}

// writePlan prints the plan for people, as kubeadm upgrade plan does: what is there, what will
// run, and the command to type.
func (a *app) writePlan(p *upgrade.Preview, v planView) {
	w := a.stdout
	switch {
	case p.Exists:
		fmt.Fprintf(w, "Upgrade of cluster %s: %s -> %s, state %s\n", p.Cluster, p.From, p.To, p.State)
	default:
		fmt.Fprintf(w, "Cluster %s has no upgrade yet: planning %s -> %s\n", p.Cluster, dash(p.From), p.To)
	}
	if len(p.Hops) > 1 {
		u := state.Upgrade{FromVersion: dash(p.From), ToVersion: p.To, Hops: p.Hops, Hop: p.Hop}
		fmt.Fprintf(w, "In %d hops, one minor each: %s -> %s (kubelets %s)\n", len(p.Hops), dash(p.From), strings.Join(p.Hops, " -> "), kubeletsWhen(u))
	}
	source := "as recorded in the database"
	switch {
	case p.Live:
		source = "read over SSH now"
	case !p.Exists:
		source = "not read: --from-version given"
	}
	fmt.Fprintf(w, "\nVersions (%s):\n", source)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  HOST\tPERSONALITY\tCONTROL-PLANE\tKUBELET")
	for _, h := range p.Versions {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", h.Host, h.Personality, dash(h.ControlPlane), dash(h.Kubelet))
	}
	tw.Flush()
	writeComponents(w, v.Components)
	switch {
	case len(v.Steps) == 0 && v.Refusal == nil:
		fmt.Fprintln(w, "\nNo step is left to run.")
	case len(v.Steps) > 0:
		fmt.Fprintln(w, "\nSteps, in order (nothing has run; each would start only if its checks pass):")
	}
	for i, s := range v.Steps {
		writePlanStep(w, i+1, s)
	}
	if v.Refusal != nil {
		fmt.Fprintf(w, "\nREFUSED: %s\n", *v.Refusal)
	}
	switch {
	case v.Wait != nil:
		fmt.Fprintf(w, "\nnext: nothing to type now: %s\n", *v.Wait)
	case v.Next != nil:
		fmt.Fprintf(w, "\nnext: %s\n", *v.Next)
		if v.RunAll != nil && *v.RunAll != *v.Next {
			fmt.Fprintf(w, "  or every remaining step: %s\n", *v.RunAll)
		}
	}
}

func writePlanStep(w io.Writer, n int, s planStepView) {
	on := "controllers"
	if len(s.Hosts) > 0 {
		on = strings.Join(s.Hosts, ", ")
	}
	if s.Playbook == nil { // start, complete: only the database changes
		on = "the database"
	}
	hop := ""
	if s.Hop != "" {
		hop = "  [" + s.Hop + "]"
	}
	fmt.Fprintf(w, "%2d. %s on %s%s\n", n, s.Step, on, hop)
	fmt.Fprintf(w, "    command:  %s\n", s.Command)
	if s.Playbook != nil {
		fmt.Fprintf(w, "    playbook: %s\n", *s.Playbook)
		for _, t := range s.Tasks {
			fmt.Fprintf(w, "      %s\n", planTaskLine(t))
		}
	}
	for _, c := range s.Checks {
		verdict := "ok     "
		if !c.OK {
			verdict = "REFUSED"
		}
		line := c.Check
		if c.Host != nil {
			line += " on " + *c.Host
		}
		if c.Note != nil && c.OK {
			line += ": " + *c.Note
		}
		fmt.Fprintf(w, "    check %s %s\n", verdict, line)
	}
}

// kubeletsWhen says when the kubelets of an upgrade with hops are upgraded.
func kubeletsWhen(u state.Upgrade) string {
	if u.KubeletsEachHop() {
		return "at every hop: the skew policy does not let them wait"
	}
	return "once, at the end: the skew policy lets them wait"
}

// planTaskLine is one task on one host, as the run's output names them: "[host] name: command",
// a script with its length, and the note.
func planTaskLine(t planTaskView) string {
	line := "[" + t.Host + "] " + t.Task
	if t.Command != nil {
		line += ": " + clip(*t.Command, 100)
	}
	if t.Lines > 0 {
		line += fmt.Sprintf(" (%d lines)", t.Lines)
	}
	if t.Note != nil {
		line += " (" + *t.Note + ")"
	}
	return line
}
