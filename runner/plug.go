package runner

import (
	"bytes"
	"context"
)

// Exec runs one shell script on a host, with env set for the script, and returns its exit status
// and output. err != nil means the outcome is unknown (as Conn.Run).
type Exec = func(ctx context.Context, script string, env map[string]string) (rc int, stdout, stderr string, err error)

// Module is a module the caller plugs in (Options.Modules): code that knows what to look at on a
// host and what it means, which the runner does not. It reaches the host only through exec, which
// runs as root when the task becomes (become_user does not apply: plugged modules read what only
// root may read, as the probes run outside a play through ExecOn do). Its result is registered as
// a built-in module's is; a returned error fails the task with its text (or makes the host
// unreachable when the connection broke). The runner calls it in check mode too: a plugged
// module must only read.
type Module = func(ctx context.Context, exec Exec, args map[string]any) (map[string]any, error)

// ExecOn returns the Exec that runs scripts over c, as root when become. It is how a caller that
// holds a Conn outside a play (a probe before or after one) runs a plugged module's script.
func ExecOn(c Conn, become bool) Exec {
	return func(ctx context.Context, script string, env map[string]string) (int, string, string, error) {
		var so, se bytes.Buffer
		rc, err := c.Run(ctx, wrap(script, env, become, "root"), nil, &so, &se)
		return rc, so.String(), se.String(), err
	}
}

// plugged turns a caller's Module into a module: exec runs over the task's connection (so a
// broken one is noticed), as root when the task becomes.
func plugged(mod Module) module {
	return func(ctx context.Context, m *modCtx, args map[string]any) (map[string]any, error) {
		return mod(ctx, ExecOn(m.conn, m.become), args)
	}
}

// moduleTable is the built-in modules and the plugged ones; a plugged module cannot replace a
// built-in one.
func moduleTable(extra map[string]Module) map[string]module {
	if len(extra) == 0 {
		return modules
	}
	t := make(map[string]module, len(modules)+len(extra))
	for name, mod := range extra {
		t[name] = plugged(mod)
	}
	for name, mod := range modules {
		t[name] = mod
	}
	return t
}
