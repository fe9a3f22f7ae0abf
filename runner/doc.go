// Package runner executes playbooks on the hosts of an inventory, Ansible style.
//
// A Runner keeps one connection per host (dialed concurrently, reused by every task and every
// Play, redialed after it broke) and runs each play with the linear strategy: a task runs on every
// active host, at most Forks at a time, before the next task starts. A host whose task fails
// leaves the play while the others go on; block/rescue/always, handlers, serial batches,
// any_errors_fatal and max_fail_percentage behave as in Ansible (a batch that fails entirely
// ends the playbook). include_tasks and include_role are decided per host when they run (when,
// loop, a templated file name) and run in lockstep on the hosts that include the same file with
// the same params; roles, delegate_to (localhost and connection: local run on this machine with
// LocalConn; a templated delegate_to in a loop picks its host and connection per item,
// delegloop.go), delegate_facts (per item too), group_by (the play's inventory changes for the rest of the run;
// hostvars, groups and group_names change between tasks), remote_user, run_once, meta and
// ignore_unreachable follow Ansible too. Variables
// rank as Ansible's precedence: role defaults < inventory < play vars < vars_files < role vars
// < block vars < task vars < include and role params, set_fact over task vars, extra vars over
// all; set_fact values and registered results outlive their play.
//
// Guarantees:
//   - a task timeout or a cancelled context cancels the remote command through Conn (the
//     transport signals it and closes its session): nothing keeps running on the host;
//   - no_log hides a task's arguments and output in events, registered errors, HostError and the
//     recap;
//   - an unreachable host (dial failure or connection lost during a task) reports an error of
//     class fault.ErrUnreachable (errors.Is); a broken Conn leaves the pool so the
//     next Conn or Play redials;
//   - includes nest at most MaxIncludeDepth deep as a play runs: a file that includes itself
//     without end fails the host with the chain of includes (file:line of each), never a stack
//     overflow;
//   - under PlayOptions.Fence, no two root commands of fenced plays ever run on one host at once,
//     none starts after a newer generation of the same key has run one there, nor while another
//     cluster's live operation holds the host, nor on a stamp that cannot be read (Fence): the
//     host keeps the lock and the stamp, so this holds whatever happens to the caller. A daemon
//     a fenced command leaves running does not hold the lock, and the stamp names the task and
//     the command's digest, never the command's text.
//
// The runner is the play engine; the modules a task names are package modules', looked up in
// the registry Options.Modules gives (modules.Builtins when nil), and called with a
// modules.Task the runner builds for the host and the task. The runner knows nothing of
// Kubernetes or kubeadm: kubeadm's kubelet_config is a module of the same interface that the
// caller adds to the registry; ExecOn gives a module's Exec over a Conn outside a play.
//
// Events go to a Reporter: NewJSONReporter writes JSON Lines, NewTextReporter writes what a
// person reads. Both are safe for concurrent use.
package runner
