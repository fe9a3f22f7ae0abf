package watch_test

import (
	"regexp"
	"testing"

	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/watch"
)

// ?refresh= is clamped: a number that overflowed into a negative wait, or one past what a
// browser's setTimeout holds (2^31 ms, run at once beyond it), polled the database in a tight
// loop. Whole seconds from 1 to 3600 are kept; more is an hour; nothing usable is the default.
func TestRefreshIsClamped(t *testing.T) {
	w := &watch.Watcher{Store: recoverytest.New(t).St}
	wait := regexp.MustCompile(`const refreshMS = \s*(-?\d+)\s*;`)
	for q, want := range map[string]string{
		"1": "1000", "3600": "3600000", "3601": "3600000", "86400000": "3600000",
		"9223372036854775807": "3600000", "99999999999999999999": "3600000",
		"0": "5000", "-3": "5000", "-99999999999999999999": "5000", "x": "5000", "": "5000",
	} {
		m := wait.FindStringSubmatch(get(t, w.StatusHandler(), "/?refresh="+q))
		if m == nil || m[1] != want {
			t.Errorf("?refresh=%s: refreshMS %v, want %s", q, m, want)
		}
	}
}
