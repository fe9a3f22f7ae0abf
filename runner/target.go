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
	done, bad := e.pickConn(ctx, h, t)
	if bad != nil {
		e.finish(h, t, bad, nil, start)
	}
	return done
}

// pickConn is useConn without finishing the task: when no connection could be had, h.conn is
// nil and the result says why (unreachable, or a delegate_to or remote_user that did not render).
func (e *playExec) pickConn(ctx context.Context, h *hostState, t *ctask) (func(), map[string]any) {
	ownUser := (t.remoteUser == "" || t.remoteUser == e.play.RemoteUser) &&
		(t.connection == "" || t.connection == e.play.Connection)
	if t.delegate == "" && ownUser && h.conn != nil {
		return nil, nil
	}
	own := h.conn
	restore := func() { h.conn = own }
	target, err := e.delegateHost(h, t)
	if err == nil && target == h.host && own != nil && ownUser {
		return nil, nil
	}
	var user string
	if err == nil {
		user, err = e.taskUser(h, t)
	}
	if err != nil {
		h.conn = nil
		return restore, failure(err.Error())
	}
	c, key, err := e.r.connFor(ctx, target, user, e.taskConnection(t))
	if err != nil {
		h.conn = nil
		return restore, map[string]any{"unreachable": true, "changed": false, "msg": err.Error()}
	}
	h.conn = &trackedConn{Conn: c, key: key, local: key == ""}
	if own == nil && target == h.host {
		return func() {}, nil // the host's own connection, dialled at last: it stays
	}
	return restore, nil
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

// taskUser is the remote_user t connects as (the task's, else the play's), rendered.
func (e *playExec) taskUser(h *hostState, t *ctask) (string, error) {
	user := t.remoteUser
	if user == "" {
		user = e.play.RemoteUser
	}
	return e.remoteUser(h, user)
}

// taskConnection is the connection keyword of t (the task's, else the play's).
func (e *playExec) taskConnection(t *ctask) string {
	if t.connection != "" {
		return t.connection
	}
	return e.play.Connection
}

// redial is a module's Task.Redial on h: it drops the task's connection from the pool, dials
// the task's host again and makes the new connection the host's (wait_for_connection).
func (e *playExec) redial(h *hostState, t *ctask) func(context.Context) (Conn, error) {
	return func(ctx context.Context) (Conn, error) {
		if old := h.conn; old != nil {
			key := old.key
			if key == "" {
				key = h.name
			}
			e.r.drop(key, old.Conn)
		}
		target, err := e.delegateHost(h, t)
		if err != nil {
			return nil, err
		}
		user, err := e.taskUser(h, t)
		if err != nil {
			return nil, err
		}
		c, key, err := e.r.connFor(ctx, target, user, e.taskConnection(t))
		if err != nil {
			return nil, err
		}
		h.conn = &trackedConn{Conn: c, key: key, local: key == ""}
		return h.conn, nil
	}
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

// isLocal is whether h is reached by a local connection: its ansible_connection is local, or it
// sets none and the play's or task's connection keyword is local.
func isLocal(h *inventory.Host, connection string) bool {
	kind, set := h.Var("ansible_connection")
	return kind == "local" || !set && connection == "local"
}

// connFor returns a connection to h as user (remote_user: it applies only where the inventory
// sets no ansible_user, as in Ansible). A host with ansible_connection=local, or none and the
// connection keyword local, gets a local connection; the others are pooled under their name
// and user.
func (r *Runner) connFor(ctx context.Context, h *inventory.Host, user, connection string) (Conn, string, error) {
	if isLocal(h, connection) {
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
