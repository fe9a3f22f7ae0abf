// Package modules holds the playbook modules: what a task does on a host once the runner has
// decided that it runs there, and with which arguments.
//
// The interface is one function type, Module: it gets the task's rendered arguments and a Task
// (the host's name, connection and variables, check mode, no_log, become, the task's
// environment and name, the role's and the playbook's folders, the host fence when the task's
// root commands run under one) and returns a Result, the map the task registers (changed,
// failed, msg, rc, stdout, stderr, ansible_facts, ... as Ansible's modules return them). A
// module reports its own failures in the result; a returned error means it could not finish
// talking to the host. A module reaches the host only through Task.Conn, or through Task.Exec
// (one script, its exit status and output), which is all a module outside this package needs.
//
// Registration is explicit: Builtins returns a Registry listing the built-in modules (command,
// shell, copy, template, fetch, stat, slurp, file, wait_for, debug, set_fact, fail, assert,
// setup, ping, lineinfile, blockinfile, replace, service, systemd, get_url, uri, apt, package,
// unarchive, raw, script, sysctl, mount, cron, group, group_by: the runner puts the host in the
// group it names; pause: it waits on the controller, as Ansible does without a terminal;
// wait_for_connection: it dials the host again through Task.Redial until ping answers; reboot:
// it dials again until the boot id has changed); a caller adds its own with Registry.Add
// (kubeadm's kubelet_config is one),
// which refuses a name already taken, and hands the registry to the runner. sysctl and mount are
// also called by their collection's names (ansible.posix.sysctl, ansible.posix.mount): the
// playbook loader maps those to the built-in ones. To add a built-in module:
// write its function in a file of its own here, list it in Builtins, describe its arguments in
// playbooks' module table (the loader refuses arguments it does not know), and test it through
// a play in runner's tests and against ansible-playbook in integration's conformance suite.
//
// Guarantees:
//   - one remote command per module call wherever possible (copy and fetch compare checksums
//     first, then transfer);
//   - commands run as Ansible runs them: the task's environment inside sudo (so env_reset
//     cannot drop it), become through `sudo -n`, each wrapper exec-ed (Wrap);
//   - in check mode a module changes nothing on the host and reports what it would change;
//   - the command and shell modules run under the task's Fence when it has one: a refused
//     command never runs, and the module returns the fence's error.
//
// What it must not know: plays, blocks, loops, handlers, variables' precedence, the inventory
// or how hosts are dialed (the runner's), nor Kubernetes or kubeadm. It imports nothing of
// kupgrade but jinja (template, assert, debug) and internal/.
package modules
