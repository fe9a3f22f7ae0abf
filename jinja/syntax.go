package jinja

import (
	"regexp"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// gonja parses `x if c else y` only as a whole {{ }} expression or {% set %} value; Jinja takes
// it anywhere, and playbooks write it inside parentheses and arguments:
// `{{ (a if c else b) | int }}`, `default('x' if c else 'y')`. nestIfs rewrites each such one
// into `((c) | __ifelse((x) | __defer, (y) | __defer))`: __defer holds back the error of the
// branch not taken (an undefined variable, as in `x.a if x is defined else 0`), __ifelse picks.

// deferred is a branch's failure, held until the branch is chosen.
type deferred struct{ v *exec.Value }

func filterDefer(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return exec.AsValue(deferred{in})
	}
	return in
}

func filterIfElse(_ *exec.Evaluator, in *exec.Value, p *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	if len(p.Args) != 2 {
		return fail("inline if: two branches expected")
	}
	v := p.Args[1]
	if truth(toGo(in)) {
		v = p.Args[0]
	}
	if d, ok := v.Interface().(deferred); ok {
		return d.v
	}
	return v
}

// nestedIf is an inline if/else inside brackets (a dict's too), which gonja does not parse.
var nestedIf = regexp.MustCompile(`[(\[{][^()\[\]{}]*\bif\b[^()\[\]{}]*\belse\b`)

// trailingComma ends a list or dict literal with a comma, as Python and Jinja allow and gonja
// does not: nestIfs drops it.
var trailingComma = regexp.MustCompile(`,\s*[\]}]`)

// testKwargs is a test called with keyword arguments (`is version('1.2', '<', strict=true)`),
// which gonja does not parse either: nestIfs makes it a call of the __is or __isnot filter.
var testKwargs = regexp.MustCompile(`\bis\s+(?:not\s+)?[\w.]+\s*\([^)]*[^=!<>]=[^=]`)

// nestIfBlocks applies nestIfs to the code of every {{ }} and {% %} of s.
func nestIfBlocks(s string) string {
	if !nestedIf.MatchString(s) && !testKwargs.MatchString(s) && !trailingComma.MatchString(s) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "{{")
		if j := strings.Index(s, "{%"); j >= 0 && (i < 0 || j < i) {
			i = j
		}
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		closer := "}}"
		if s[i+1] == '%' {
			closer = "%}"
		}
		end := blockEnd(s, i+2, closer)
		b.WriteString(s[:i+2])
		b.WriteString(nestIfs(s[i+2 : end]))
		s = s[end:]
	}
}

// blockEnd is where closer ends the code starting at i, string literals skipped, or len(s).
func blockEnd(s string, i int, closer string) int {
	for ; i < len(s); i++ {
		if q := s[i]; q == '\'' || q == '"' {
			for i++; i < len(s) && s[i] != q; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			continue
		}
		if strings.HasPrefix(s[i:], closer) {
			return i
		}
	}
	return len(s)
}

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

// rewriteItem rewrites one item `a if c else b` (b may hold another inline if); an item without
// both words at its own level keeps its text, with its inner brackets rewritten.
func rewriteItem(toks []token) string {
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
	if ifAt < 0 || elseAt < 0 {
		return rewriteToks(toks)
	}
	a, c := rewriteToks(toks[:ifAt]), rewriteToks(toks[ifAt+1:elseAt])
	return " ((" + c + ") | __ifelse((" + a + ") | __defer, (" + rewriteItem(toks[elseAt+1:]) + ") | __defer)) "
}

// filterIs runs a test called with keyword arguments (see testKwargs); filterIsNot negates it.
func filterIs(e *exec.Evaluator, in *exec.Value, p *exec.VarArgs) *exec.Value {
	if len(p.Args) == 0 {
		return fail("is: no test named")
	}
	args := &exec.VarArgs{Args: p.Args[1:], KwArgs: p.KwArgs}
	return e.ExecuteTestByName(p.Args[0].String(), in, args)
}

func filterIsNot(e *exec.Evaluator, in *exec.Value, p *exec.VarArgs) *exec.Value {
	v := filterIs(e, in, p)
	if v.IsError() {
		return v
	}
	return exec.AsValue(!v.IsTrue())
}
