package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kupgrade/kupgrade/internal/shellword"
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
	m.Redial = e.redial(h, t)
	m.Local = h.conn != nil && h.conn.local
	if t.checkMode != nil {
		m.Check = *t.checkMode
	}
	m.Diff = e.diffOn(t)
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

// diffOn is whether t runs with diff: its diff keyword, else --diff.
func (e *playExec) diffOn(t *ctask) bool {
	if t.diff != nil {
		return *t.diff
	}
	return e.po.Diff
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

// CopyOut writes the file at path on the host behind c to w, read as root (a file only root may
// read, such as an etcd snapshot): what a caller outside a play fetches to its own side.
func CopyOut(ctx context.Context, c Conn, path string, w io.Writer) error {
	var stderr bytes.Buffer
	rc, err := c.Run(ctx, modules.Wrap("cat "+shellword.Quote(path), nil, true, "root"), nil, w, &stderr)
	if err == nil && rc != 0 {
		err = fmt.Errorf("cat %s: exit status %d: %s", path, rc, strings.TrimSpace(stderr.String()))
	}
	return err
}
