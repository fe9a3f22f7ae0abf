// Package sshtest gives tests real SSH servers on 127.0.0.1 with pinned host keys.
//
// NewServer starts an in-process server (golang.org/x/crypto/ssh) that runs "exec" requests
// with /bin/sh in a temporary folder, serves SFTP (github.com/pkg/sftp), delivers signals and
// answers keepalives like OpenSSH, forwards direct-tcpip channels (so it can be a jump host) and
// can be frozen to play a peer that vanished. NewOpenSSH starts the system's sshd with its own
// configuration, for checks that must hold against the real thing; it skips the test when sshd
// is not installed, unless CI=true.
//
// Both return a *Server whose Host and Dialer methods give what runner and sshconn need:
//
//	srv := sshtest.NewServer(t)
//	c, err := srv.Dialer().Dial(t.Context(), srv.Host("node-1"))
//
// Everything is torn down by t.Cleanup; no state survives the test.
package sshtest
