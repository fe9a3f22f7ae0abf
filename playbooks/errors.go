package playbooks

import (
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/internal/typo"
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

// Is makes every *Error of class fault.ErrBadInput: the user's input is at fault, which cmd
// maps to exit status 2.
func (e *Error) Is(target error) bool { return target == fault.ErrBadInput }

func (e *Error) Unwrap() error { return e.Err }

// suggest returns ` (did you mean "x"?)` for the candidate nearest to s, or "".
func suggest(s string, candidates []string) string {
	if c := typo.Closest(s, candidates); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
