// Package crashtest runs a test's body in a child process with a bounded goroutine stack, for
// tests of code that would overflow the stack or recurse without end were it broken: a Go stack
// overflow cannot be recovered and would kill the whole test binary, hiding every other result.
// In the child, the test fails with a "fatal error: stack overflow" well before the default 1 GB
// stack is reached; the parent reports the child's output and its exit status.
package crashtest

import (
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// envKey names, in the child's environment, the test that is to run its body.
const envKey = "KUPGRADE_CRASHTEST"

// MaxStack bounds the child's goroutine stacks: far more than any bounded recursion needs, far
// less than a runaway one takes.
const MaxStack = 64 << 20

// InChild reports whether the caller is the child and should run the test's body. In the parent
// it runs the test again in a child process, fails t with the child's output when the child
// fails (a failed assertion or a crash), and returns false.
func InChild(t *testing.T) bool {
	t.Helper()
	if os.Getenv(envKey) == t.Name() {
		debug.SetMaxStack(MaxStack)
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run="+runPattern(t.Name()), "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envKey+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the test's child process failed (%v):\n%s", err, tail(string(out), 60))
	}
	return false
}

// runPattern selects exactly the test (or subtest) name for -test.run.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// tail keeps the first and last lines of a long output: a stack overflow's trace is thousands
// of lines, and its head (the error) and its end (the test's own frames) are what matter.
func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= 2*n {
		return s
	}
	return strings.Join(lines[:n], "\n") + "\n...\n" + strings.Join(lines[len(lines)-n:], "\n")
}
