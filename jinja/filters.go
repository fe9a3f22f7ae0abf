package jinja

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// filterError is a filter's own complaint about its input.
type filterError struct{ msg string }

func (e *filterError) Error() string { return e.msg }

func fail(format string, a ...any) *exec.Value {
	return exec.AsValue(&filterError{fmt.Sprintf(format, a...)})
}

// filter is an Ansible filter on plain Go values: in is the input, args the positional
// arguments, kw the keyword ones.
type filter func(in any, args []any, kw map[string]any) (any, error)

// lift makes a gonja filter of f: an undefined or failed input goes through untouched (so it
// fails where it is used), the values are plain Go on both sides.
func lift(name string, f filter) exec.FilterFunction {
	return func(_ *exec.Evaluator, in *exec.Value, p *exec.VarArgs) *exec.Value {
		if in.IsError() {
			return in
		}
		args := make([]any, len(p.Args))
		for i, a := range p.Args {
			if a.IsError() {
				return a
			}
			args[i] = toGo(a)
		}
		kw := make(map[string]any, len(p.KwArgs))
		for k, a := range p.KwArgs {
			kw[k] = toGo(a)
		}
		out, err := f(toGo(in), unstar(args, kw), kw)
		if err != nil {
			return fail("%s: %v", name, err)
		}
		return exec.AsValue(out)
	}
}

// arg is the i-th positional argument, or the keyword one, or def.
func arg(args []any, kw map[string]any, i int, name string, def any) any {
	if i < len(args) {
		return args[i]
	}
	if v, ok := kw[name]; ok {
		return v
	}
	return def
}

func ansibleFilters() map[string]exec.FilterFunction {
	m := map[string]exec.FilterFunction{
		"default": filterDefault, "d": filterDefault, "mandatory": filterMandatory,
		"__defer": filterDefer, "__keys": filterKeys, "__str": filterStr,
		"selectattr": selectAttr(true), "rejectattr": selectAttr(false), "__ifelse": filterIfElse, "__noelse": filterNoElse, "__is": filterIs, "__isnot": filterIsNot,
	}
	for name, f := range map[string]filter{
		"bool": fBool, "int": fInt, "float": fFloat, "string": fString, "lower": fLower,
		"upper": fUpper, "split": fSplit, "ternary": fTernary, "quote": fQuote,
		"basename": fBasename, "dirname": fDirname, "b64encode": fB64Encode,
		"b64decode": fB64Decode, "regex_replace": fRegexReplace, "regex_search": fRegexSearch,
		"regex_findall": fRegexFindall, "regex_escape": fRegexEscape, "type_debug": fTypeDebug,
		"format": fFormat, "splitext": fSplitext, "hash": fHash, "checksum": fHashOf("sha1"),
		"sha1": fHashOf("sha1"), "md5": fHashOf("md5"), "to_json": fToJSON, "to_nice_json": fToNiceJSON,
		"from_json": fFromJSON, "to_yaml": fToYAML, "to_nice_yaml": fToNiceYAML,
		"from_yaml": fFromYAML, "sum": fSum, "reverse": fReverse, "from_yaml_all": fFromYAMLAll, "path_join": fPathJoin,
	} {
		m[name] = lift(name, f)
	}
	for name, f := range opFilters() {
		m[name] = lift(name, f)
	}
	for name, f := range listFilters() {
		m[name] = lift(name, f)
	}
	for name, f := range netFilters() {
		m[name] = lift(name, f)
	}
	return m
}

// filterDefault is default(value=”, boolean=false): the value when the input is undefined
// (or, with boolean, false in Python's sense). None is a value, as in Ansible.
func filterDefault(_ *exec.Evaluator, in *exec.Value, p *exec.VarArgs) *exec.Value {
	def := exec.AsValue("")
	if len(p.Args) > 0 {
		def = p.Args[0]
	} else if v, ok := p.KwArgs["default_value"]; ok {
		def = v
	}
	boolean := len(p.Args) > 1 && p.Args[1].IsTrue()
	if v, ok := p.KwArgs["boolean"]; ok {
		boolean = v.IsTrue()
	}
	if isUndefined(in) {
		return def
	}
	if in.IsError() {
		return in
	}
	if boolean && !truth(toGo(in)) {
		return def
	}
	return in
}

func filterMandatory(_ *exec.Evaluator, in *exec.Value, p *exec.VarArgs) *exec.Value {
	if u, ok := undefinedOf(in); ok {
		if len(p.Args) > 0 {
			return fail("%s", p.Args[0].String())
		}
		return fail("Mandatory variable '%s' not defined.", u.Name)
	}
	return in
}

// toBool is Ansible's bool filter.
func toBool(v any) any {
	switch x := v.(type) {
	case nil, bool:
		return x
	case string:
		switch strings.ToLower(x) {
		case "yes", "on", "1", "true":
			return true
		}
		return false
	case int:
		return x == 1
	case float64:
		return x == 1
	}
	return false
}

func fBool(in any, _ []any, _ map[string]any) (any, error) { return toBool(in), nil }

// fInt is Jinja's int(default=0, base=10).
func fInt(in any, args []any, kw map[string]any) (any, error) {
	def := arg(args, kw, 0, "default", 0)
	base, _ := arg(args, kw, 1, "base", 10).(int)
	if n, ok := Int(in, base); ok {
		return n, nil
	}
	if s, ok := in.(string); ok {
		if f, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(s), "_", ""), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return int(f), nil
		}
	}
	return def, nil
}

func fFloat(in any, args []any, kw map[string]any) (any, error) {
	def := arg(args, kw, 0, "default", 0.0)
	switch x := in.(type) {
	case int:
		return float64(x), nil
	case float64:
		return x, nil
	case bool:
		if x {
			return 1.0, nil
		}
		return 0.0, nil
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return f, nil
		}
	}
	return def, nil
}

// str is Python's str(): unlike text in a template, None is "None".
func str(v any) string {
	if v == nil {
		return "None"
	}
	return Str(v)
}

func fString(in any, _ []any, _ map[string]any) (any, error) { return text(str(in)), nil }
func fLower(in any, _ []any, _ map[string]any) (any, error)  { return strings.ToLower(str(in)), nil }
func fUpper(in any, _ []any, _ map[string]any) (any, error)  { return strings.ToUpper(str(in)), nil }

// fSplit is Python's str.split(sep=None, maxsplit=-1).
func fSplit(in any, args []any, kw map[string]any) (any, error) {
	s := str(in)
	sep := arg(args, kw, 0, "sep", nil)
	n, _ := arg(args, kw, 1, "maxsplit", -1).(int)
	var parts []string
	if sep == nil {
		parts = strings.Fields(s)
		if n >= 0 && len(parts) > n+1 {
			parts = append(parts[:n], strings.Join(parts[n:], " "))
		}
	} else {
		if n >= 0 {
			n++
		}
		parts = strings.SplitN(s, str(sep), n)
	}
	return strList(parts), nil
}

func strList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func fTernary(in any, args []any, kw map[string]any) (any, error) {
	t, f := arg(args, kw, 0, "true_val", nil), arg(args, kw, 1, "false_val", nil)
	if none := arg(args, kw, 2, "none_val", nil); in == nil && none != nil {
		return none, nil
	}
	if truth(in) {
		return t, nil
	}
	return f, nil
}
