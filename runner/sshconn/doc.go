// Package sshconn is kupgrade's SSH transport: golang.org/x/crypto/ssh for commands and
// github.com/pkg/sftp for files. It satisfies runner's Conn and Dialer interfaces without
// importing runner.
//
// What it guarantees:
//
//   - One SSH connection per Dial, reused by every Run, Upload and Download on the returned
//     Client; each Run opens its own session, the SFTP client is opened once on first use.
//   - Host keys are checked against a known_hosts file. An unknown key is refused unless
//     Dialer.AcceptNew is set (then it is appended, under a file lock, in OpenSSH's format);
//     a changed key is always refused. Jump hosts are checked the same way.
//   - Authentication uses ssh-agent and key files; an encrypted key asks Dialer.Passphrase
//     once per file, and only when the server is willing to accept that key.
//   - A cancelled or timed-out Run leaves nothing running on the host: the remote command runs
//     in its own process group under a small POSIX sh wrapper; the client sends TERM, then
//     KILL, then closes the session, and the wrapper's watchdog kills the group when the
//     wrapper or the SSH connection dies.
//   - Uploads never leave a half-written destination: the data goes to a temporary name in the
//     same folder, is chmod-ed, then renamed over the destination (POSIX rename when the server
//     offers it); the temporary file is removed on failure.
//   - Every failure to reach or talk to a host is an *Error with a Class and the host's
//     address; messages never contain key material or passphrases.
//
// Package sshtest provides an in-process SSH server (and a real sshd launcher) for tests.
package sshconn
