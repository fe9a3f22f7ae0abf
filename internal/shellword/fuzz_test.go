package shellword

import (
	"slices"
	"strings"
	"testing"
)

// FuzzRoundTrip: any words (here the fuzzer's string cut at NUL bytes) come back from Split and
// SplitPlain exactly as they were joined.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"a\x00b c", "", "\x00", "it's\x00\"q\"\x00$x\\", "new\nline\x00\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words := strings.Split(s, "\x00")
		line := Join(words)
		for name, split := range map[string]func(string) ([]string, error){"Split": Split, "SplitPlain": SplitPlain} {
			got, err := split(line)
			if err != nil || !slices.Equal(got, words) {
				t.Fatalf("%s(Join(%q)) = %q, %v; line %s", name, words, got, err, line)
			}
		}
	})
}

// FuzzSplit: no line makes Split or SplitPlain panic, and a line SplitPlain accepts means the
// same to Split.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{`echo 'a b' "c \"d\"" e\ f`, "a\\\nb", `"unclosed`, `a\`, `x 'y'\''z'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := Split(line)
		plain, perr := SplitPlain(line)
		if perr == nil && (err != nil || !slices.Equal(plain, words)) {
			t.Fatalf("%q: SplitPlain %q, Split %q (%v)", line, plain, words, err)
		}
	})
}
