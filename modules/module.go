package modules

import (
	"bytes"
	"context"
	"io"
	"io/fs"
)

// Module runs one task on one host: t says where and how, args are the task's arguments,
// rendered already. It returns the result the task registers (see Result for the keys the
// runner reads). A module reports its own failures in the result (failed, msg); a returned
// error means it could not finish talking to the host (connection lost, context done) or could
// not do its work at all, and the runner fails the task with the error's text (or marks the
// host unreachable when the connection broke). A module is called in check mode too, with
// t.Check set: it must then change nothing.
type Module = func(ctx context.Context, t *Task, args map[string]any) (Result, error)

// Result is what a module returns and a task registers. The runner reads these keys, as
// Ansible's modules return them: changed (bool), failed (bool), msg (text, or any value debug
// shows), skipped, unreachable, rc, stdout and stderr (shown on failure), results (a loop's
// items; the runner fills it), and ansible_facts (variables set on the host for the rest of
// the run). Any other key is registered as it is.
type Result = map[string]any

// Task is what a module gets for one call on one host. The runner builds one per call; a
// module may change its own copy (setup drops Become) but must not keep it.
type Task struct {
	Host       string            // the host's name in the inventory
	Conn       Conn              // the host's connection, shared with the play's other tasks
	Vars       map[string]any    // the host's variables as the task sees them: read only
	Check      bool              // check mode: report what would change, change nothing
	Diff       bool              // diff mode: a module that changes files returns Ansible's "diff" (before, after)
	NoLog      bool              // the task's output is hidden (the runner censors the result)
	Become     bool              // commands run as BecomeUser through sudo
	BecomeUser string            // whom to become; "" is root
	Env        map[string]string // the task's environment, for the commands the task runs
	Name       string            // the task's name as written (not rendered): a fence's stamp names it
	RoleDir    string            // the folder of the role the task comes from ("" outside a role)
	PlayDir    string            // the playbook's folder: copy and template look there after RoleDir
	Fence      Fence             // set when the task's root commands run under a host fence
	Local      bool              // the task runs on this machine (a local connection): reboot refuses
	// Redial drops the host's connection and dials it again, returning the new one (which the
	// runner's later tasks use): wait_for_connection's way to reach a host that went away.
	Redial func(ctx context.Context) (Conn, error)
}

// Conn is the transport to one host. runner/sshconn satisfies it without importing this
// package; the runner hands modules its connection wrapped so that it notices a loss (a
// connection with a Lost() bool method tells modules so).
type Conn interface {
	// Run runs cmd with the remote user's shell (`sh -c` semantics), no become (Task wraps
	// `exec sudo -n -u USER -- sh -c '...'` itself). exit is the remote exit status when the
	// command ran to its end (non-zero is NOT an error). err != nil means the outcome is
	// unknown: connection lost, ctx cancelled or deadline: then the remote command has been
	// signalled and its session closed, so nothing keeps running on the host.
	Run(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) (exit int, err error)
	// Upload writes r to remotePath: a temporary name in the same folder, chmod, rename.
	Upload(ctx context.Context, r io.Reader, remotePath string, mode fs.FileMode) error
	Download(ctx context.Context, remotePath string, w io.Writer) error
	Close() error
}

// Fence guards the root commands of a task on its host (the runner's Fence is one): the
// command and shell modules run their command under it.
type Fence interface {
	// Command returns the command line that runs inner (a script for sh -c) under the fence;
	// label names the command in the fence's stamp.
	Command(inner, label string) string
	// Refusal reads a refusal from a fenced command's exit status and stderr: nil when the
	// command ran (whatever its status).
	Refusal(rc int, stderr string) error
}

// Exec runs one shell script on a host, with env set for the script, and returns its exit
// status and output. err != nil means the outcome is unknown (as Conn.Run).
type Exec = func(ctx context.Context, script string, env map[string]string) (rc int, stdout, stderr string, err error)

// Exec returns the Exec that runs scripts over the task's connection, as root when the task
// becomes (become_user aside: a module that reads what kubeadm leaves reads what only root may
// read), without the task's environment: a script gets the env it is given.
func (t *Task) Exec() Exec { return ExecOn(t.Conn, t.Become) }

// ExecOn returns the Exec that runs scripts over c, as root when become: how a caller that
// holds a Conn outside a play (a probe before or after one) runs a module's script.
func ExecOn(c Conn, become bool) Exec {
	return func(ctx context.Context, script string, env map[string]string) (int, string, string, error) {
		var so, se bytes.Buffer
		rc, err := c.Run(ctx, Wrap(script, env, become, "root"), nil, &so, &se)
		return rc, so.String(), se.String(), err
	}
}

// lost reports whether the task's connection broke during the call.
func (t *Task) lost() bool {
	l, ok := t.Conn.(interface{ Lost() bool })
	return ok && l.Lost()
}
