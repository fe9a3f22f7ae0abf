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

// filterNoElse is the value of `a if c` when c is false: undefined, as Jinja's (default()
// applies to it, `is defined` is false; Ansible writes it as "" in text, kupgrade fails).
func filterNoElse(_ *exec.Evaluator, _ *exec.Value, _ *exec.VarArgs) *exec.Value {
	return exec.AsValue(deferred{exec.AsValue(&Undefined{Name: "the inline if-expression evaluated to false and no else section was defined; its value"})})
}

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

// nestedIf may be an inline if (its else optional) inside brackets (a dict's too), which gonja does not parse:
// an opening bracket before an if and an else, other brackets between them or not
// (`([b] if c else []) + d`); nestIfs rewrites only the real ones.
var nestedIf = regexp.MustCompile(`(?s)[(\[{].*\bif\b`)

// chainedIf is `a if c else b if d else e`, which gonja does not parse at the top of a {{ }}
// either (Jinja reads it as `a if c else (b if d else e)`).
var chainedIf = regexp.MustCompile(`(?s)\belse\b.*\bif\b.*\belse\b`)

// chained reports whether code's own level (outside brackets) holds an inline if after an else.
func chained(toks []token) bool {
	seenElse := false
	for i := 0; i < len(toks); i++ {
		switch t := toks[i]; {
		case t.kind == '(' || t.kind == '[' || t.kind == '{':
			i = closing(toks, i)
		case t.kind == 'w' && t.text == "else":
			seenElse = true
		case t.kind == 'w' && t.text == "if" && seenElse:
			return true
		}
	}
	return false
}

// trailingComma ends a list or dict literal with a comma, as Python and Jinja allow and gonja
// does not: nestIfs drops it.
var trailingComma = regexp.MustCompile(`,\s*[\]}]`)

// testKwargs is a test called with keyword arguments (`is version('1.2', '<', strict=true)`),
// which gonja does not parse either: nestIfs makes it a call of the __is or __isnot filter.
var testKwargs = regexp.MustCompile(`\bis\s+(?:not\s+)?[\w.]+\s*\([^)]*[^=!<>]=[^=]`)

// starArg is a call's starred argument (`query('together', *lists)`), which gonja does not
// parse: nestIfs passes it as the keyword starKey, which unstar spreads back.
var starArg = regexp.MustCompile(`[(,]\s*\*\s*[\w(\[]`)

// starKey is the keyword a starred argument is passed as.
const starKey = "__star"

// unstar spreads a starred argument, passed as the keyword starKey, after the positional ones,
// as Python's f(a, *rest) does; a value that is not a list is one argument.
func unstar(args []any, kw map[string]any) []any {
	v, ok := kw[starKey]
	if !ok {
		return args
	}
	delete(kw, starKey)
	if l, ok := v.([]any); ok {
		return append(args, l...)
	}
	return append(args, v)
}

// nestIfBlocks applies nestIfs to the code of every {{ }} and {% %} of s.
func nestIfBlocks(s string) string {
	if !nestedIf.MatchString(s) && !testKwargs.MatchString(s) && !trailingComma.MatchString(s) &&
		!chainedIf.MatchString(s) && !starArg.MatchString(s) {
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
		code := s[i+2 : end]
		if closer == "}}" && chained(tokenize(code)) {
			code = "(" + code + ")" // nestIfs rewrites the ifs inside brackets
		}
		b.WriteString(nestIfs(code))
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
