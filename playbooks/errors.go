package playbooks

import (
	"fmt"
	"strings"

	"github.com/hbollon/go-edlib"
)

// Error is a mistake in a playbook or in an expression. Its message reads
// `file:line:col: what is wrong`. Line and Column are 0 when the mistake has no place in a file.
type Error struct {
	File   string
	Line   int
	Column int
	Msg    string
	Err    error // the underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// BadInput reports that the user's input is at fault: cmd maps it to exit status 2.
func (e *Error) BadInput() bool { return true }

func (e *Error) Unwrap() error { return e.Err }

// UndefinedError is a template or condition that read a variable nobody set.
type UndefinedError struct {
	Name string // dotted path, e.g. "kcfg.changed"
}

func (e *UndefinedError) Error() string { return fmt.Sprintf("undefined variable %q", e.Name) }

// suggest returns ` (did you mean "x"?)` for the candidate nearest to s, or "".
func suggest(s string, candidates []string) string {
	if c := closest(s, candidates); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// closest returns the candidate nearest to s, or "" when none is near enough to be a likely typo.
func closest(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(s) <= 3 {
		limit = 1
	}
	if bestD < 0 || bestD > limit {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance: a swap of two neighbours ("whne")
// counts as one edit, the commonest typo.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		// Long strings are never typos of our short keywords; avoid quadratic work on fuzz input.
		if a == b {
			return 0
		}
		return 64
	}
	return edlib.OSADamerauLevenshteinDistance(a, b)
}
