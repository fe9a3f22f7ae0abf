package runner

import (
	"github.com/kupgrade/kupgrade/modules"
	"github.com/kupgrade/kupgrade/playbooks"
)

// Exec runs one shell script on a host (modules.Exec).
type Exec = modules.Exec

// ExecOn returns the Exec that runs scripts over c, as root when become (modules.ExecOn): how a
// caller that holds a Conn outside a play (a probe before or after one) runs a module's script.
func ExecOn(c Conn, become bool) Exec { return modules.ExecOn(c, become) }

// modTask is what a module gets for t on h.
func (e *playExec) modTask(h *hostState, t *ctask) *modules.Task {
	m := &modules.Task{Host: h.name, Conn: h.conn, Vars: h.vars, Env: t.env, Check: e.po.Check, NoLog: t.noLog,
		RoleDir: t.roleDir, PlayDir: e.dir, Name: t.name, Become: h.host.Become(), BecomeUser: h.host.BecomeUser()}
	if t.checkMode != nil {
		m.Check = *t.checkMode
	}
	if t.become != nil {
		m.Become = *t.become
	}
	if t.becomeUser != "" {
		m.BecomeUser = t.becomeUser
	}
	if e.po.Fence != nil && runsAsRoot(m.Become, m.BecomeUser, h.host.User()) {
		m.Fence = e.po.Fence
	}
	return m
}

// module is what runs t: its module, or include_vars, which is the loader's action rather than a
// module of the registry (it renders with the play's precedence).
func (e *playExec) module(t *ctask) modules.Module {
	if t.mod == nil && t.modName == "include_vars" {
		return e.includeVars
	}
	return t.mod
}

// factsTask is the "Gathering Facts" step of gather_facts: true.
func (e *playExec) factsTask() *ctask {
	return &ctask{t: &playbooks.Task{Name: "Gathering Facts", Module: "setup"}, name: "Gathering Facts",
		mod: e.r.mods.Lookup("setup"), modName: "setup", loopVar: "item"}
}

var _ modules.Fence = (*Fence)(nil)
