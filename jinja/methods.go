package jinja

import (
	"regexp"
	"strings"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// gonjaStrMethods are the Python str methods gonja implements; strMethods keeps them and
// replaces those whose arguments differ from Python's.
var gonjaStrMethods = []string{"capitalize", "capwords", "casefold", "center", "count", "encode",
	"endswith", "expandtabs", "find", "format", "format_map", "isalnum", "isalpha", "isascii",
	"isdecimal", "isdigit", "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper",
	"join", "ljust", "lower", "lstrip", "partition", "removeprefix", "removesuffix", "rfind",
	"rjust", "rpartition", "rsplit", "rstrip", "splitlines", "startswith", "strip", "swapcase",
	"title", "upper", "zfill"}

func methods() exec.Methods {
	m := map[string]exec.Method[string]{}
	for _, name := range gonjaStrMethods {
		if f, ok := builtins.Methods.Str.Get(name); ok {
			m[name] = f
		}
	}
	m["replace"] = func(self string, _ *exec.Value, a *exec.VarArgs) (any, error) {
		args := goArgs(a)
		if len(args) < 2 {
			return nil, &filterError{"replace() takes at least 2 arguments"}
		}
		n := -1
		if len(args) > 2 {
			n, _ = args[2].(int)
		}
		return strings.Replace(self, str(args[0]), str(args[1]), n), nil
	}
	m["split"] = func(self string, _ *exec.Value, a *exec.VarArgs) (any, error) {
		return fSplit(self, goArgs(a), nil)
	}
	all := builtins.Methods
	all.Str = exec.NewMethodSet(m)
	all.Dict = dictMethods()
	all.List = listMethods()
	return all
}

// listMethods are gonja's list methods and Python's index() and count(), which playbooks use
// (groups['x'].index(inventory_hostname)).
func listMethods() *exec.MethodSet[[]any] {
	m := map[string]exec.Method[[]any]{}
	for _, name := range []string{"append", "reverse", "copy"} {
		if f, ok := builtins.Methods.List.Get(name); ok {
			m[name] = f
		}
	}
	m["index"] = func(self []any, _ *exec.Value, a *exec.VarArgs) (any, error) {
		args := goArgs(a)
		if len(args) != 1 {
			return nil, &filterError{"index() takes exactly one argument"}
		}
		for i, x := range self {
			if pyEqual(toGo(exec.AsValue(x)), args[0]) {
				return i, nil
			}
		}
		var b strings.Builder
		writeRepr(&b, args[0])
		return nil, &filterError{b.String() + " is not in list"}
	}
	m["count"] = func(self []any, _ *exec.Value, a *exec.VarArgs) (any, error) {
		args := goArgs(a)
		if len(args) != 1 {
			return nil, &filterError{"count() takes exactly one argument"}
		}
		n := 0
		for _, x := range self {
			if pyEqual(toGo(exec.AsValue(x)), args[0]) {
				n++
			}
		}
		return n, nil
	}
	return exec.NewMethodSet(m)
}

// dictMethods are gonja's dict methods with keys(), values() and items() in the mapping's
// order, as Python's.
func dictMethods() *exec.MethodSet[map[string]any] {
	m := map[string]exec.Method[map[string]any]{}
	for _, name := range []string{"get", "pop", "setdefault", "update", "copy", "clear"} {
		if f, ok := builtins.Methods.Dict.Get(name); ok {
			m[name] = f
		}
	}
	view := func(each func(d map[string]any, k string) any) exec.Method[map[string]any] {
		return func(_ map[string]any, self *exec.Value, a *exec.VarArgs) (any, error) {
			if len(a.Args) > 0 || len(a.KwArgs) > 0 {
				return nil, &filterError{"takes no arguments"}
			}
			d, _ := toGo(self).(map[string]any)
			out := make([]any, 0, len(d))
			for _, k := range Keys(d) {
				out = append(out, each(d, k))
			}
			return out, nil
		}
	}
	m["keys"] = view(func(_ map[string]any, k string) any { return k })
	m["values"] = view(func(d map[string]any, k string) any { return d[k] })
	m["items"] = view(func(d map[string]any, k string) any { return []any{k, d[k]} })
	return exec.NewMethodSet(m)
}

func goArgs(a *exec.VarArgs) []any {
	out := make([]any, len(a.Args))
	for i, v := range a.Args {
		out[i] = toGo(v)
	}
	return out
}

// text is a filter's result that Ansible never turns into a list or dict (its
// STRING_TYPE_FILTERS: string, to_json, to_yaml...), even when it reads as one.
type text string

var shellSafe = regexp.MustCompile(`^[\w@%+=:,./-]+$`)

// fQuote is Python's shlex.quote.
func fQuote(in any, _ []any, _ map[string]any) (any, error) {
	s := str(in)
	if in == nil {
		s = ""
	}
	switch {
	case s == "":
		return "''", nil
	case shellSafe.MatchString(s):
		return s, nil
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'", nil
}

func fReverse(in any, _ []any, _ map[string]any) (any, error) {
	if s, ok := in.(string); ok {
		r := []rune(s)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r), nil
	}
	l, err := listOf(in)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(l))
	for i, e := range l {
		out[len(l)-1-i] = e
	}
	return out, nil
}
