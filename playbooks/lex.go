package playbooks

import (
	"fmt"
	"strings"
)

type kind int

const (
	kIdent kind = iota
	kNumber
	kString
	kPunct
	kGroup // a bracketed group: text is the opening bracket, kids its content
)

// item is a token, or a bracketed group of items, with the whitespace that preceded it so that
// an expression comes back out of rewrite unchanged where nothing was rewritten.
type item struct {
	kind     kind
	pre      string
	text     string
	kids     []item
	closePre string
	close    string
}

func (it item) write(b *strings.Builder) {
	b.WriteString(it.pre)
	b.WriteString(it.text)
	for _, k := range it.kids {
		k.write(b)
	}
	if it.kind == kGroup {
		b.WriteString(it.closePre)
		b.WriteString(it.close)
	}
}

// lex splits an expression into tokens. It only needs to know names, numbers, string literals,
// brackets and the few operators rewrite cares about ("|" versus "||", "." and "?.").
func lex(src string) ([]item, error) {
	var toks []item
	i := 0
	for i < len(src) {
		start := i
		for i < len(src) && strings.IndexByte(" \t\r\n", src[i]) >= 0 {
			i++
		}
		pre := src[start:i]
		if i >= len(src) {
			if pre != "" {
				toks = append(toks, item{kind: kPunct, pre: pre})
			}
			break
		}
		c := src[i]
		j := i + 1
		k := kPunct
		switch {
		case isIdentStart(c):
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			k = kIdent
		case c >= '0' && c <= '9':
			j = scanNumber(src, i)
			k = kNumber
		case c == '\'' || c == '"' || c == '`':
			end, err := scanString(src, i)
			if err != nil {
				return nil, err
			}
			j, k = end, kString
		case strings.HasPrefix(src[i:], "||"), strings.HasPrefix(src[i:], "?."),
			strings.HasPrefix(src[i:], ".."), strings.HasPrefix(src[i:], "??"):
			j = i + 2
		}
		toks = append(toks, item{kind: k, pre: pre, text: src[i:j]})
		i = j
	}
	return toks, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func scanNumber(src string, i int) int {
	j := i
	for j < len(src) && (isIdentPart(src[j]) || src[j] == '_') {
		j++
	}
	// A fraction, but not the range operator "1..3".
	if j+1 < len(src) && src[j] == '.' && src[j+1] >= '0' && src[j+1] <= '9' {
		j++
		for j < len(src) && isIdentPart(src[j]) {
			j++
		}
	}
	return j
}

func scanString(src string, i int) (int, error) {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch {
		case src[j] == '\\' && q != '`':
			j++
		case src[j] == q:
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("unterminated string starting at %q", clip(src[i:], 20))
}

// maxDepth bounds bracket nesting: no real condition comes near it, and fuzzed input must not
// exhaust the stack.
const maxDepth = 64

var closing = map[string]string{"(": ")", "[": "]", "{": "}"}

// group nests tokens into bracketed groups. It returns the items up to the closing bracket `want`
// ("" at top level) and the tokens after it.
func group(toks []item, want string, depth int) ([]item, []item, error) {
	if depth > maxDepth {
		return nil, nil, fmt.Errorf("brackets nested deeper than %d", maxDepth)
	}
	var items []item
	for len(toks) > 0 {
		t := toks[0]
		toks = toks[1:]
		if t.kind == kPunct {
			if c, ok := closing[t.text]; ok {
				kids, rest, err := group(toks, c, depth+1)
				if err != nil {
					return nil, nil, err
				}
				closeTok := toks[len(toks)-len(rest)-1]
				items = append(items, item{kind: kGroup, pre: t.pre, text: t.text, kids: kids,
					closePre: closeTok.pre, close: c})
				toks = rest
				continue
			}
			if t.text == ")" || t.text == "]" || t.text == "}" {
				if t.text != want {
					return nil, nil, fmt.Errorf("unexpected %q", t.text)
				}
				return items, toks, nil
			}
		}
		items = append(items, t)
	}
	if want != "" {
		return nil, nil, fmt.Errorf("missing %q", want)
	}
	return items, nil, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
