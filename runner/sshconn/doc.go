// Package sshconn is kupgrade's SSH transport: golang.org/x/crypto/ssh for commands and
// github.com/pkg/sftp for files. It satisfies runner's Conn and Dialer interfaces without
// importing runner.
//
// What it guarantees:
//
//   - One SSH connection per Dial, reused by every Run, Upload and Download on the returned
//     Client; the SFTP client is opened once on first use.
//   - Commands without stdin run through an agent: one long-lived session whose shell (bash
//     where the host has it, else sh) starts each command as `sh -c`, or an `exec WORD...` line
//     as its words, and reports its status between random marks. A command then costs the host
//     a fork and one or two execs, not a session of its own; the agent is kept for the next
//     command, and commands run at once get an agent each. Commands with stdin, and every command
//     on a host whose shell does not start the agent, get a session each under a wrapper.
//   - A host is reached as Ansible's ssh connection reaches it: the inventory's connection
//     variables, then its ssh args (ansible_ssh_args, _common_args, _extra_args), then
//     ssh_config (kevinburke/ssh_config), then the defaults; ProxyJump chains and a ProxyCommand
//     (its stdin and stdout as the connection) lead to it.
//   - Host keys are checked against known_hosts files. An unknown key is refused unless
//     Dialer.AcceptNew is set or the host's settings say StrictHostKeyChecking=accept-new (then
//     it is appended, under a file lock, in OpenSSH's format); a changed key is refused unless
//     they say StrictHostKeyChecking=no. Jump hosts are checked the same way.
//   - Authentication uses ssh-agent and key files; an encrypted key asks Dialer.Passphrase
//     once per file, and only when the server is willing to accept that key.
//   - A cancelled or timed-out Run leaves nothing running on the host: the remote command runs
//     in its own process group; on cancel, a lost connection or Close, the agent's reader (or
//     the wrapper's watchdog) sends the group TERM, then KILL.
//   - A command that leaves a background process writing to its stdout or stderr does not hold
//     Run up (a session would wait for it); what that process writes later may reach the output
//     of a later command on the same agent.
//   - Uploads never leave a half-written destination: the data goes to a temporary name in the
//     same folder, is chmod-ed, then renamed over the destination (POSIX rename when the server
//     offers it); the temporary file is removed on failure.
//   - Every failure to reach or talk to a host is an *Error with a Class and the host's
//     address; messages never contain key material or passphrases.
//
// Package sshtest provides an in-process SSH server (and a real sshd launcher) for tests.
package sshconn
