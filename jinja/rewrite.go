package jinja

import (
	"strings"
)

// token is a piece of Jinja code: a string literal, a word, a bracket, a comma or other text.
type token struct {
	text string
	kind byte // 's' string, 'w' word, '(' '[' '{' opening, ')' ']' '}' closing, ',', 'o' other
}

func tokenize(code string) []token {
	var out []token
	for i := 0; i < len(code); {
		c := code[i]
		j := i + 1
		kind := byte('o')
		switch {
		case c == '\'' || c == '"':
			for j < len(code) && code[j] != c {
				if code[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(code))
			kind = 's'
		case isWordByte(c):
			for j < len(code) && isWordByte(code[j]) {
				j++
			}
			kind = 'w'
		case strings.IndexByte("([{)]},", c) >= 0:
			kind = c
		default:
			for j < len(code) && !isWordByte(code[j]) && strings.IndexByte("([{)]},'\"", code[j]) < 0 {
				j++
			}
		}
		out = append(out, token{code[i:j], kind})
		i = j
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.'
}

// nestIfs rewrites the inline ifs inside the brackets of one block of code; the block's own
// top level is left to gonja.
func nestIfs(code string) string { return rewriteToks(tokenize(code)) }

func rewriteToks(toks []token) string {
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if at, ok := kwargsTest(toks, i); ok {
			filter := "__is"
			if toks[i+2].text == "not" {
				filter = "__isnot"
			}
			b.WriteString("| " + filter + "('" + toks[at].text + "', ")
			i = at + 1 // the "(" of the test's arguments: its items follow
			end := closing(toks, i)
			b.WriteString(rewriteGroup(toks[i+1 : end]))
			if end < len(toks) {
				b.WriteString(toks[end].text)
			}
			i = end
			continue
		}
		b.WriteString(t.text)
		if t.kind != '(' && t.kind != '[' && t.kind != '{' {
			continue
		}
		end := closing(toks, i)
		switch t.kind {
		case '{':
			b.WriteString(rewriteDict(toks[i+1 : end]))
		case '[':
			b.WriteString(rewriteGroup(dropTrailingComma(toks[i+1 : end])))
		default: // a call's arguments or a tuple: `(x,)` is a tuple, its comma stays
			b.WriteString(rewriteGroup(toks[i+1 : end]))
		}
		if end < len(toks) {
			b.WriteString(toks[end].text)
		}
		i = end
	}
	return b.String()
}

// kwargsTest reports whether toks[i] is the "is" of `is [not] name(..., key=value)`, and
// where the name is.
func kwargsTest(toks []token, i int) (int, bool) {
	if toks[i].kind != 'w' || toks[i].text != "is" {
		return 0, false
	}
	j := i + 1
	skip := func() {
		for j < len(toks) && toks[j].kind == 'o' && strings.TrimSpace(toks[j].text) == "" {
			j++
		}
	}
	skip()
	if j < len(toks) && toks[j].text == "not" {
		j++
		skip()
	}
	if j+1 >= len(toks) || toks[j].kind != 'w' || toks[j+1].kind != '(' {
		return 0, false
	}
	end := closing(toks, j+1)
	for _, t := range toks[j+2 : end] {
		rest := t.text
		for _, op := range []string{"==", "!=", "<=", ">="} {
			rest = strings.ReplaceAll(rest, op, "")
		}
		if t.kind == 'o' && strings.Contains(rest, "=") {
			return j, true
		}
	}
	return 0, false
}

// closing is the index of the bracket that closes toks[open], or len(toks).
func closing(toks []token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch toks[i].kind {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(toks)
}

// rewriteGroup rewrites each comma-separated item inside one pair of brackets.
func rewriteGroup(toks []token) string { return eachItem(toks, rewriteItem) }

// eachItem rewrites each top-level comma-separated item of toks with rewrite, commas kept.
func eachItem(toks []token, rewrite func([]token) string) string {
	var b strings.Builder
	start := 0
	for i := 0; i <= len(toks); i++ {
		switch {
		case i == len(toks) || toks[i].kind == ',':
			b.WriteString(rewrite(toks[start:i]))
			if i < len(toks) {
				b.WriteString(",")
			}
			start = i + 1
		case toks[i].kind == '(' || toks[i].kind == '[' || toks[i].kind == '{':
			i = closing(toks, i)
		}
	}
	return b.String()
}

// dropTrailingComma drops the comma (and the blanks around it) that ends a list's or a dict's
// items, if one does.
func dropTrailingComma(toks []token) []token {
	end := len(toks)
	for end > 0 && toks[end-1].kind == 'o' && strings.TrimSpace(toks[end-1].text) == "" {
		end--
	}
	if end > 0 && toks[end-1].kind == ',' {
		return toks[:end-1]
	}
	return toks
}

// rewriteDict rewrites the entries of a dict literal: each value may be an inline if.
func rewriteDict(toks []token) string { return eachItem(dropTrailingComma(toks), rewriteEntry) }

// rewriteEntry rewrites the value of one `key: value` entry of a dict literal.
func rewriteEntry(toks []token) string {
	for i := 0; i < len(toks); i++ {
		switch {
		case toks[i].kind == '(' || toks[i].kind == '[' || toks[i].kind == '{':
			i = closing(toks, i)
		case toks[i].kind == 'o' && strings.Contains(toks[i].text, ":"):
			k := strings.Index(toks[i].text, ":")
			value := append([]token{{toks[i].text[k+1:], 'o'}}, toks[i+1:]...)
			return rewriteToks(toks[:i]) + toks[i].text[:k+1] + rewriteItem(value)
		}
	}
	return rewriteToks(toks)
}

// rewriteItem rewrites one item `a if c else b` (b may hold another inline if) or `a if c`; an
// item without an if at its own level keeps its text, with its inner brackets rewritten.
func rewriteItem(toks []token) string {
	if len(toks) > 1 && toks[0].kind == 'o' && strings.TrimSpace(toks[0].text) == "*" {
		return " " + starKey + "=(" + rewriteItem(toks[1:]) + ")" // f(a, *rest): see unstar
	}
	ifAt, elseAt := -1, -1
	for i := 0; i < len(toks); i++ {
		switch {
		case toks[i].kind == '(' || toks[i].kind == '[' || toks[i].kind == '{':
			i = closing(toks, i)
		case toks[i].kind == 'w' && toks[i].text == "if" && ifAt < 0:
			ifAt = i
		case toks[i].kind == 'w' && toks[i].text == "else" && ifAt >= 0 && elseAt < 0:
			elseAt = i
		}
	}
	if ifAt < 0 {
		return rewriteToks(toks)
	}
	if elseAt < 0 { // `a if c`: undefined when c is false, as in Jinja
		a, c := rewriteToks(toks[:ifAt]), rewriteToks(toks[ifAt+1:])
		return " ((" + c + ") | __ifelse((" + a + ") | __defer, none | __noelse)) "
	}
	a, c := rewriteToks(toks[:ifAt]), rewriteToks(toks[ifAt+1:elseAt])
	return " ((" + c + ") | __ifelse((" + a + ") | __defer, (" + rewriteItem(toks[elseAt+1:]) + ") | __defer)) "
}
