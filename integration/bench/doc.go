// Command bench measures `kupgrade play` against ansible-playbook and a Go lower bound, side by
// side in one run, on N real OpenSSH servers on 127.0.0.1 (issue 3, "Performance";
// docs/performance.md).
//
//	go run ./integration/bench -n 5,20,50,200 -ansible-n 5,20
//
// For each N it starts N sshd processes (/usr/sbin/sshd -D -e -f CONFIG, each with its own
// folder, config and ed25519 host key, on a free port), writes one inventory, known_hosts,
// ansible.cfg and playbook that every tool uses, and runs:
//
//   - sshconn, no playbook: the playbook's commands over runner/sshconn's Client, one
//     connection per host, no playbook machinery (commands go through its agent session);
//   - kupgrade play: a kupgrade binary built from ./cmd/kupgrade (or -kupgrade PATH);
//   - bare x/crypto/ssh: the same with x/crypto/ssh and pkg/sftp alone, a session per command,
//     with none of sshconn's guarantees (nothing stops a cancelled command);
//   - ansible-playbook (Debian's ansible-core), forks = N, pipelining, ControlPersist, only at
//     the N of -ansible-n because it takes minutes.
//
// The lower bound, which the "vs bound" column divides by, is the faster of the two Go clients at
// that N.
//
// The playbook: gather_facts false, 10 × `command: /bin/true`, a 1 MiB copy to a per-host
// destination, a stat. The destination folder is emptied before every run, so every copy
// transfers. The Go clients run -runs times each, interleaved, and the table shows medians.
//
// Fairness: the servers log in as the current user with a throwaway key and `SetEnv SHLVL=1`,
// which makes the login bash skip ~/.bashrc for commands sent over SSH (root's runs pyenv
// init here, about 0.6 s a command); every tool goes through the same servers. ssh-agent is
// hidden from every tool. Client CPU is the child's rusage for kupgrade and ansible-playbook,
// plus, for ansible, the CPU time (from /proc) of the ControlPersist masters its ssh leaves
// behind, which are then ended so every run starts cold. The in-process clients count
// getrusage(self).
//
// N = 200 is 200 sshd processes: the servers allow 1000 unauthenticated connections at once
// (MaxStartups), each takes a free port of its own, and the benchmark lifts its soft limit of
// open files to the hard one for itself and the tools it starts (refusing to start when the hard
// limit is below about 8 per server).
//
// Then, at the N of -python (5 by default), it measures the Python path: kupgrade runs 10 ×
// ansible.builtin.find (a module kupgrade has not built in: packaged with its module_utils,
// sent and run by the host's python3) and 10 × `command: /bin/true`, -runs times each
// (medians), and ansible-playbook the find playbook once: it prints each one's wall time per
// task and what a task through Python adds over a built-in one.
//
// A run that fails (exit status, or a host not ok in the recap) prints FAILED and its output.
// Last, it uploads 64 MiB to one server with sshconn (on a new connection, then reused) and
// with `sftp -b`, in MB/s. It never asserts anything: these machines drift 15–35 % an hour,
// so read ratios within one run. It needs openssh-server and, for the comparison, ansible-core.
package main
