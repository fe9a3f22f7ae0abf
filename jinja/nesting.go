package jinja

import (
	"fmt"
	"strings"
)

// MaxNesting bounds how deep brackets, and block statements ({% if %}, {% for %}...), nest in
// a template. Jinja2 stops near there too (Python's recursion limit); gonja's parser and the
// walker that checks the syntax tree recurse once per level, so without a bound a template of
// a few hundred kilobytes of "((((" kills the process with a stack overflow.
const MaxNesting = 100

// maxTreeDepth bounds the depth of the syntax tree the walker visits: a long chain of binary
// operators or attributes ("1 + 1 + ... + 1") parses into a tree as deep as it is long.
const maxTreeDepth = 1000

// blockOpeners are the statements that open a block closed by {% end... %}.
var blockOpeners = map[string]bool{"if": true, "for": true, "macro": true, "call": true, "filter": true,
	"with": true, "block": true, "autoescape": true, "trans": true, "raw": true}

// checkNesting scans the code of s's {{ }} and {% %} (string literals skipped) for brackets or block
// statements nested deeper than MaxNesting, before anything parses it.
func checkNesting(s string) error {
	n := nester{s: s, line: 1}
	for n.i < len(n.s) {
		if err := n.step(); err != nil {
			return fmt.Errorf("line %d: %w", n.line, err)
		}
	}
	return nil
}

type nester struct {
	s        string
	i, line  int
	code     bool // inside {{ }} or {% %}
	brackets int  // open brackets in this code
	blocks   int  // open block statements
	quote    byte // the quote of the string literal being skipped, or 0
}

func (n *nester) step() error {
	c := n.s[n.i]
	n.i++
	switch {
	case c == '\n':
		n.line++
	case n.quote != 0:
		n.inString(c)
	case !n.code:
		return n.text(c)
	case c == '\'' || c == '"':
		n.quote = c
	case n.brackets == 0 && (c == '}' || c == '%') && n.peek('}'):
		n.code = false
		n.i++
	case c == '(' || c == '[' || c == '{':
		if n.brackets++; n.brackets > MaxNesting {
			return fmt.Errorf("brackets nest more than %d deep", MaxNesting)
		}
	case (c == ')' || c == ']' || c == '}') && n.brackets > 0:
		n.brackets--
	}
	return nil
}

func (n *nester) inString(c byte) {
	switch {
	case c == '\\' && n.i < len(n.s):
		if n.s[n.i] == '\n' {
			n.line++
		}
		n.i++
	case c == n.quote:
		n.quote = 0
	}
}

// text is a byte outside code: "{{" and "{%" open code; a statement's first word may open or
// close a block.
func (n *nester) text(c byte) error {
	if c != '{' || !(n.peek('{') || n.peek('%')) {
		return nil
	}
	stmt := n.s[n.i] == '%'
	n.i++
	n.code, n.brackets = true, 0
	if !stmt {
		return nil
	}
	word := strings.TrimLeft(n.s[n.i:min(n.i+40, len(n.s))], "-+ \t\r\n")
	if end := strings.IndexFunc(word, func(r rune) bool { return r != '_' && (r < 'a' || r > 'z') }); end >= 0 {
		word = word[:end]
	}
	switch {
	case blockOpeners[word]:
		if n.blocks++; n.blocks > MaxNesting {
			return fmt.Errorf("block statements nest more than %d deep", MaxNesting)
		}
	case strings.HasPrefix(word, "end") && n.blocks > 0:
		n.blocks--
	}
	return nil
}

func (n *nester) peek(c byte) bool { return n.i < len(n.s) && n.s[n.i] == c }
