package inventory

import (
	"errors"
	"strings"
)

// shlexSplit splits an INI host line as Python's shlex.split(line, comments=True) does, which
// is what Ansible's ini plugin calls: words separated by blanks, '...' and "..." quoting (a
// backslash escapes only " and \ inside double quotes), a backslash escaping any character
// outside quotes, and '#' starting a comment even inside a word (a=b#c is a=b).
func shlexSplit(line string) ([]string, error) {
	var out []string
	var tok strings.Builder
	inWord, quoted := false, false
	emit := func() {
		if inWord || quoted {
			out = append(out, tok.String())
		}
		tok.Reset()
		inWord, quoted = false, false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			emit()
		case c == '#':
			emit()
			return out, nil
		case c == '\\':
			if i+1 >= len(line) {
				return nil, errors.New("no escaped character after the final backslash")
			}
			i++
			tok.WriteByte(line[i])
			inWord = true
		case c == '\'' || c == '"':
			end, err := shlexQuoted(line, i, &tok)
			if err != nil {
				return nil, err
			}
			i, quoted, inWord = end, true, true
		default:
			tok.WriteByte(c)
			inWord = true
		}
	}
	emit()
	return out, nil
}

// shlexQuoted copies the quoted text starting at line[start] (the quote) into tok and returns
// the index of the closing quote.
func shlexQuoted(line string, start int, tok *strings.Builder) (int, error) {
	q := line[start]
	for i := start + 1; i < len(line); i++ {
		c := line[i]
		switch {
		case c == q:
			return i, nil
		case q == '"' && c == '\\' && i+1 < len(line):
			if n := line[i+1]; n == '"' || n == '\\' {
				tok.WriteByte(n)
				i++
				continue
			}
			tok.WriteByte(c)
		default:
			tok.WriteByte(c)
		}
	}
	return 0, errors.New("no closing quotation")
}
