// Package termsafe makes text that came from elsewhere (a host's output, an error a host sent, a
// reason read back from the database) safe to print on a person's terminal: the control
// characters a terminal acts on are written as escapes, the way the JSON output writes them, so
// that a host cannot retitle the window, recolour the screen, move the cursor or erase what the
// operator reads.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Text returns s with every control character escaped but newline and tab: the C0 controls
// (ESC, BEL, carriage return...) and DEL as \u001b, the C1 controls (U+0080-U+009F) as \u009b,
// and a byte that is not UTF-8 (an 8-bit C1 control to some terminals) as \x9b. Text without
// any is returned as is.
func Text(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// firstUnsafe is the index of the first byte Text must escape, -1 when there is none.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if unsafe(rune(c)) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafe(r) {
			return i
		}
		i += n
	}
	return -1
}

// unsafe reports a control character a terminal may act on: C0 but newline and tab, DEL, C1.
func unsafe(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f)
}

// Writer escapes, as Text does, everything written to it before it reaches the terminal.
type Writer struct{ W io.Writer }

// NewWriter returns a Writer over w.
func NewWriter(w io.Writer) *Writer { return &Writer{W: w} }

// Write writes p escaped and reports len(p) when all of it was written. A UTF-8 character split
// across two writes is escaped byte by byte: write whole strings.
func (w *Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
