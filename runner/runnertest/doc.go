// Package runnertest provides transports for testing code that runs playbooks, without SSH:
// LocalConn runs commands with /bin/sh on this machine (files in a test's temporary folder), and
// FakeConn answers scripted results and records every call, and can lose its connection.
//
// Both satisfy runner.Conn; LocalDialer and FakeDialer satisfy runner.Dialer.
package runnertest
