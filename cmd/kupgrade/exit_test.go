package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run calls Main in this process, in a temporary folder, and returns its status and output.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// kong's requests to exit come back as Main's status: --help is 0 and runs nothing, a wrong
// command line is 2 (docs/cli.md), and the test process goes on.
func TestMainExitStatus(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("KUPGRADE_DB", "sqlite:kupgrade.db")
	tests := []struct {
		args        []string
		code        int
		out, errOut string
	}{
		{[]string{"--help"}, exitOK, "Usage: kupgrade <command>", ""},
		{[]string{"-h"}, exitOK, "Usage: kupgrade <command>", ""},
		{[]string{"upgrade", "show", "--help"}, exitOK, "Usage: kupgrade upgrade show", ""},
		{[]string{"upgrade", "start", "--help"}, exitOK, "Usage: kupgrade upgrade start", ""}, // VERSION missing: still help
		{[]string{"--bogus"}, exitBadInput, "", "unknown flag --bogus"},
		{[]string{}, exitBadInput, "", "expected one of"},
		{[]string{"upgrade", "frobnicate"}, exitBadInput, "", "unexpected argument frobnicate"},
		{[]string{"-o", "yaml", "version"}, exitBadInput, "", "--output"},
		{[]string{"version"}, exitOK, "kupgrade dev", ""},
	}
	for _, tc := range tests {
		code, out, errOut := run(t, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.errOut) {
			t.Errorf("kupgrade %s = %d\nstdout: %s\nstderr: %s\nwant %d, stdout with %q, stderr with %q",
				strings.Join(tc.args, " "), code, out, errOut, tc.code, tc.out, tc.errOut)
		}
	}
	if _, err := os.Stat("kupgrade.db"); err == nil {
		t.Error("--help or a wrong command line created the database")
	}
}

// No message shows a DSN's password, whether the DSN comes from --db, --db-file or KUPGRADE_DB,
// does not parse, or names a server that refuses the connection.
func TestMainNeverPrintsTheDSNPassword(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	dsns := []string{
		"mysql://u:hunter2/x@127.0.0.1:1/k",     // parses; the connection is refused
		"mysql://u:hunter2/x@127.0.0.1:99999/k", // bad port
		"kup:hunter2/x@tcp(127.0.0.1:1)",        // no database: the parser goes wrong
		"u:hunter2@tcp(127.0.0.1:1)/k?tls=hunter2",
		"mysql://u:hunter2%zz@127.0.0.1:1/k",
		"mysql://u:hunter2/x@127.0.0.1:1,127.0.0.1:2,127.0.0.1:3/k", // every server refuses: each is named
		"mysql://u:hunter2@127.0.0.1:1,,127.0.0.1:3/k",              // an empty host in the list
	}
	for _, dsn := range dsns {
		file := filepath.Join(dir, "dsn")
		if err := os.WriteFile(file, []byte(dsn+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"--db", dsn, "upgrade", "show"},
			{"--db-file", file, "upgrade", "show"},
			{"--db", dsn, "upgrade", "failed", "--bogus"},
			{"upgrade", "show", dsn},
		} {
			t.Setenv("KUPGRADE_DB", "sqlite:kupgrade.db")
			code, out, errOut := run(t, args...)
			t.Setenv("KUPGRADE_DB", dsn)
			envCode, envOut, envErr := run(t, "host", "list")
			for _, s := range []string{out, errOut, envOut, envErr} {
				if strings.Contains(s, "hunter2") {
					t.Errorf("kupgrade %q (or KUPGRADE_DB) printed the password:\n%s", args, s)
				}
			}
			if code == exitOK || envCode == exitOK {
				t.Errorf("kupgrade %q = %d, KUPGRADE_DB = %d: want failures", args, code, envCode)
			}
		}
	}
}
