package killcheck

import (
	"os"
	"strconv"
	"testing"
)

// Setting is a campaign's number from the environment (how many kills, which seed), or def when
// the variable is unset; a value that is not a number fails the test, naming the variable.
func Setting(t testing.TB, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: want a number", name, s)
	}
	return n
}
