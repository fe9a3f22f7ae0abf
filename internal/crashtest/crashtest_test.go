package crashtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// overflow recurses without end.
func overflow(n int) int { return overflow(n+1) + 1 }

// TestOverflowingBody is the test whose body dies of a stack overflow; it runs only when
// TestOverflowFailsTheTest asks for it.
func TestOverflowingBody(t *testing.T) {
	if os.Getenv("CRASHTEST_SELF") == "" {
		t.Skip("run by TestOverflowFailsTheTest")
	}
	if !InChild(t) {
		return
	}
	overflow(0)
}

// A body that overflows the stack fails its test with the child's report, and the test binary
// that ran it lives on to say so.
func TestOverflowFailsTheTest(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestOverflowingBody$", "-test.v")
	cmd.Env = append(os.Environ(), "CRASHTEST_SELF=1")
	out, err := cmd.CombinedOutput()
	got := string(out)
	if err == nil || !strings.Contains(got, "--- FAIL: TestOverflowingBody") ||
		!strings.Contains(got, "the test's child process failed") || !strings.Contains(got, "stack overflow") {
		t.Errorf("err %v, output:\n%s\nwant TestOverflowingBody failed with the child's stack overflow", err, tail(got, 20))
	}
}

func TestRunPattern(t *testing.T) {
	if got := runPattern("TestA/sub_(1)"); got != `^TestA$/^sub_\(1\)$` {
		t.Errorf("runPattern = %s", got)
	}
}
