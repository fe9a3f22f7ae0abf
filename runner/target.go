package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/jinja"
)

// localNames are the names delegate_to reaches on this machine when the inventory has no host
// of that name, as Ansible's implicit localhost.
var localNames = []string{"localhost", "127.0.0.1", "::1"}

// useConn points h.conn at the connection the task runs on when it is not the host's own:
// delegate_to another host, a remote_user other than the play's, or a host whose dial failed
// under ignore_unreachable (dialled again, as Ansible tries each task). It returns nil when the
// task runs on h.conn as it is, else a func that restores h.conn. When no connection could be
// had, the task is finished (unreachable) and h.conn is nil until the func runs.
func (e *playExec) useConn(ctx context.Context, h *hostState, t *ctask, start time.Time) func() {
	ownUser := (t.remoteUser == "" || t.remoteUser == e.play.RemoteUser) &&
		(t.connection == "" || t.connection == e.play.Connection)
	if t.delegate == "" && ownUser && h.conn != nil {
		return nil
	}
	own := h.conn
	restore := func() { h.conn = own }
	target, err := e.delegateHost(h, t)
	if err == nil && target == h.host && own != nil && ownUser {
		return nil
	}
	var user string
	if err == nil {
		user = t.remoteUser
		if user == "" {
			user = e.play.RemoteUser
		}
		user, err = e.remoteUser(h, user)
	}
	if err != nil {
		h.conn = nil
		e.finish(h, t, failure(err.Error()), nil, start)
		return restore
	}
	conn := t.connection
	if conn == "" {
		conn = e.play.Connection
	}
	c, key, err := e.r.connFor(ctx, target, user, conn)
	if err != nil {
		h.conn = nil
		e.finish(h, t, map[string]any{"unreachable": true, "changed": false, "msg": err.Error()}, nil, start)
		return restore
	}
	h.conn = &trackedConn{Conn: c, key: key}
	if own == nil && target == h.host {
		return func() {} // the host's own connection, dialled at last: it stays
	}
	return restore
}

// delegateHost is the host a task's delegate_to names (the host itself without one): an
// inventory host, this machine for localhost, or else a host reached by that name over SSH.
func (e *playExec) delegateHost(h *hostState, t *ctask) (*inventory.Host, error) {
	if t.delegate == "" {
		return h.host, nil
	}
	name, err := jinja.RenderString(t.delegate, h.vars)
	if err != nil {
		return nil, fmt.Errorf("delegate_to: %w", err)
	}
	name = strings.TrimSpace(name)
	for _, ih := range e.inv.Hosts {
		if ih.Name == name {
			return ih, nil
		}
	}
	vars := map[string]any{}
	for _, l := range localNames {
		if name == l {
			vars["ansible_connection"] = "local"
		}
	}
	return &inventory.Host{Name: name, Vars: vars}, nil
}

func (e *playExec) remoteUser(h *hostState, user string) (string, error) {
	if !strings.Contains(user, "{{") {
		return user, nil
	}
	u, err := jinja.RenderString(user, h.vars)
	if err != nil {
		return "", fmt.Errorf("remote_user: %w", err)
	}
	return u, nil
}

// connFor returns a connection to h as user (remote_user: it applies only where the inventory
// sets no ansible_user, as in Ansible). A host with ansible_connection=local, or none and the
// connection keyword local, gets a local connection; the others are pooled under their name
// and user.
func (r *Runner) connFor(ctx context.Context, h *inventory.Host, user, connection string) (Conn, string, error) {
	kind, set := h.Var("ansible_connection")
	if kind == "local" || !set && connection == "local" {
		return &LocalConn{}, "", nil
	}
	if user == "" || h.User() != "" {
		c, err := r.Conn(ctx, h)
		return c, h.Name, err
	}
	cp := *h // keeps the inventory's folder, against which a relative key file resolves
	as := &cp
	as.Vars = make(map[string]any, len(h.Vars)+1)
	for k, v := range h.Vars {
		as.Vars[k] = v
	}
	as.Vars["ansible_user"] = user
	key := h.Name + "\x00" + user
	c, err := r.conn(ctx, as, key)
	return c, key, err
}
