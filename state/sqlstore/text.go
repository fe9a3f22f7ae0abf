package sqlstore

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of the text columns, in bytes: what the narrowest backend holds. MySQL's TEXT holds
// 65,535 bytes; a VARCHAR(255) of utf8mb4 holds 255 characters, so 255 bytes always fit.
const (
	maxText = 65535 // reason, last_error (TEXT)
	maxName = 255   // operation, and the other VARCHAR(255) columns of free text
)

// storedText is s as every text column stores it: valid UTF-8 (each invalid byte becomes U+FFFD,
// which MySQL would otherwise refuse with error 1366) and at most max bytes (error 1406), cut at
// a character boundary, keeping the start and saying how much was cut. Storing it again changes
// nothing, so a stored value compares equal to the value it was made from once both pass here.
func storedText(s string, max int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= max {
		return s
	}
	note := fmt.Sprintf("... (cut: %d bytes in all)", len(s))
	if len(note) >= max {
		note = ""
	}
	keep := max - len(note)
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + note
}
