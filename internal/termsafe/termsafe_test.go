package termsafe_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kupgrade/kupgrade/internal/termsafe"
)

// A host's window-title sequence (OSC 0 ... BEL), colours and a carriage return that would
// overwrite the line reach the terminal as visible escapes, not as commands.
func TestWindowTitleSequenceIsEscaped(t *testing.T) {
	cases := map[string]string{
		"\x1b]0;owned\x07error":    `\u001b]0;owned\u0007error`,
		"\x1b[31mred\x1b[0m":       `\u001b[31mred\u001b[0m`,
		"ok\rFAKE":                 `ok\u000dFAKE`,
		"del\x7f c1\u009b2J":       `del\u007f c1\u009b2J`,
		"raw8bit\x9b2J":            `raw8bit\x9b2J`,
		"lines\n\tand tabs, é, 日本": "lines\n\tand tabs, é, 日本",
		"":                         "",
	}
	for in, want := range cases {
		if got := termsafe.Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// The Writer escapes what is printed through it, and counts the bytes it was given.
func TestWriterEscapes(t *testing.T) {
	var b bytes.Buffer
	n, err := fmt.Fprintf(termsafe.NewWriter(&b), "kupgrade: %s\n", "\x1b]2;title\x1b\\")
	if err != nil || n != len("kupgrade: \x1b]2;title\x1b\\\n") {
		t.Fatalf("Fprintf = %d, %v", n, err)
	}
	if got, want := b.String(), `kupgrade: \u001b]2;title\u001b\`+"\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
