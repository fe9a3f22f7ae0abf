package state

import (
	"errors"
	"strings"
	"testing"
)

// An unknown --until names the nearest state, lists them all, and is bad input (exit 2).
func TestUnknownState(t *testing.T) {
	err := UnknownState("--until", "upgraded-frist-master")
	msg := err.Error()
	if !errors.Is(err, ErrBadInput) {
		t.Errorf("UnknownState is not bad input: %v", err)
	}
	for _, want := range []string{`--until "upgraded-frist-master"`, "(did you mean upgraded-first-master?)", "upgrade-started, downloading-images", "upgrade-aborted"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, ".md") {
		t.Errorf("message cites a document instead of the states:\n%s", msg)
	}
	if far := UnknownState("--until", "banana").Error(); strings.Contains(far, "did you mean") {
		t.Errorf("a word near no state got a suggestion:\n%s", far)
	}
}
