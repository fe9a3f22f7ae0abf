package inventory

import (
	"strings"
	"testing"
)

// A cluster name is refused when it is empty, a folder's name, holds a control character (C0,
// DEL, C1), is not UTF-8 or is longer than the databases hold; '/', spaces and other scripts
// are names like any other.
func TestCheckClusterName(t *testing.T) {
	for name, want := range map[string]string{
		"": "empty", ".": "folder", "..": "folder", "a\tb": "U+0009", "esc\x1b[2J": "U+001B", "del\x7f": "U+007F",
		"c1\u0085": "U+0085", "bad\xffutf8": "not UTF-8", strings.Repeat("é", 256): "256 characters long",
	} {
		if err := CheckClusterName(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want a refusal saying %q", name, err, want)
		}
	}
	for _, name := range []string{"prod", "prod/east", "prod east", "prod_east", "...", ".hidden", "日本", strings.Repeat("é", 255)} {
		if err := CheckClusterName(name); err != nil {
			t.Errorf("%q refused: %v", name, err)
		}
	}
}
