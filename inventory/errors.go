package inventory

import (
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/internal/fault"
)

// Error is a mistake in the inventory, in a host_vars/group_vars file or in a --limit pattern.
// Its message reads `path:line:col: what is wrong; how to fix`. Line and Column are 0 when the
// mistake has no place in a file (a missing file, a pattern).
type Error struct {
	File   string
	Line   int
	Column int
	Msg    string // what is wrong
	Fix    string // how to fix it, "" when the message says it all
	Err    error  // the underlying error, if any (for errors.Is on fs errors)
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
	if e.Fix != "" {
		b.WriteString("; ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// Is makes every *Error of class fault.ErrBadInput: the user's input is at fault, which cmd
// maps to exit status 2.
func (e *Error) Is(target error) bool { return target == fault.ErrBadInput }

func (e *Error) Unwrap() error { return e.Err }
