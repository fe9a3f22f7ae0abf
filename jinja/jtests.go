package jinja

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

type testFn = func(*exec.Evaluator, *exec.Value, *exec.VarArgs) (bool, error)

// test is an Ansible test on plain Go values; an undefined or failed input is an error.
type test func(in any, args []any, kw map[string]any) (bool, error)

func liftTest(name string, t test) testFn {
	return func(_ *exec.Evaluator, in *exec.Value, p *exec.VarArgs) (bool, error) {
		if in.IsError() {
			return false, in
		}
		args := make([]any, len(p.Args))
		for i, a := range p.Args {
			if a.IsError() {
				return false, a
			}
			args[i] = toGo(a)
		}
		kw := make(map[string]any, len(p.KwArgs))
		for k, a := range p.KwArgs {
			kw[k] = toGo(a)
		}
		ok, err := t(toGo(in), args, kw)
		if err != nil {
			return false, &filterError{fmt.Sprintf("test %s: %v", name, err)}
		}
		return ok, nil
	}
}

func ansibleTests() map[string]exec.TestFunction {
	m := map[string]exec.TestFunction{
		"defined":   testFn(func(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) (bool, error) { return definedness(in, true) }),
		"undefined": testFn(func(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) (bool, error) { return definedness(in, false) }),
	}
	for name, t := range map[string]test{
		"none":   func(in any, _ []any, _ map[string]any) (bool, error) { return in == nil, nil },
		"failed": resultTest("failed"), "failure": resultTest("failed"),
		"succeeded": negate(resultTest("failed")), "success": negate(resultTest("failed")),
		"successful": negate(resultTest("failed")), "changed": resultTest("changed"),
		"change": resultTest("changed"), "skipped": resultTest("skipped"), "skip": resultTest("skipped"),
		"unreachable": resultTest("unreachable"), "reachable": negate(resultTest("unreachable")),
		"version": tVersion, "version_compare": tVersion,
		"search": regexTest("search"), "match": regexTest("match"), "regex": regexTest(""),
		"string":  func(in any, _ []any, _ map[string]any) (bool, error) { _, ok := in.(string); return ok, nil },
		"mapping": func(in any, _ []any, _ map[string]any) (bool, error) { _, ok := in.(map[string]any); return ok, nil },
		"number": func(in any, _ []any, _ map[string]any) (bool, error) {
			_, isBool := in.(bool)
			_, ok := number(in)
			return ok && !isBool, nil
		},
		"iterable": tIterable, "sequence": tIterable,
		"truthy": func(in any, _ []any, _ map[string]any) (bool, error) { return truth(in), nil },
		"falsy":  func(in any, _ []any, _ map[string]any) (bool, error) { return !truth(in), nil },
		"in":     tIn, "contains": func(in any, args []any, kw map[string]any) (bool, error) {
			return tIn(arg(args, kw, 0, "item", nil), []any{in}, nil)
		},
		"subset": tSubset, "issubset": tSubset,
		"superset": func(in any, args []any, _ map[string]any) (bool, error) {
			if len(args) != 1 {
				return false, errors.New("takes one list")
			}
			return tSubset(args[0], []any{in}, nil)
		},
		"all": func(in any, _ []any, _ map[string]any) (bool, error) { return allAny(in, true) },
		"any": func(in any, _ []any, _ map[string]any) (bool, error) { return allAny(in, false) },
	} {
		m[name] = liftTest(name, t)
	}
	return m
}

// definedness answers `is defined` (want) and `is undefined` (!want); another error stays one.
func definedness(in *exec.Value, want bool) (bool, error) {
	if isUndefined(in) {
		return !want, nil
	}
	if in.IsError() {
		return false, in
	}
	return want, nil
}

func negate(t test) test {
	return func(in any, args []any, kw map[string]any) (bool, error) {
		ok, err := t(in, args, kw)
		return !ok && err == nil, err
	}
}

// resultTest reads a flag of a task result; a loop's result is changed when an item is.
func resultTest(key string) test {
	return func(in any, _ []any, _ map[string]any) (bool, error) {
		m, ok := in.(map[string]any)
		if !ok {
			return false, fmt.Errorf("expects a dictionary")
		}
		if v, ok := m[key]; ok || key != "changed" {
			return truth(toBool(v)), nil
		}
		results, _ := m["results"].([]any)
		for _, r := range results {
			if rm, ok := r.(map[string]any); ok && truth(rm["changed"]) {
				return true, nil
			}
		}
		return false, nil
	}
}

func regexTest(mode string) test {
	return func(in any, args []any, kw map[string]any) (bool, error) {
		if mode == "" {
			mode, _ = kw["match_type"].(string)
			if mode == "" {
				mode = "search"
			}
		}
		pattern := str(arg(args, kw, 0, "pattern", ""))
		if mode == "match" {
			pattern = `\A(?:` + pattern + `)`
		} else if mode == "fullmatch" {
			pattern = `\A(?:` + pattern + `)\z`
		}
		re, err := pyRegexp(pattern, kw)
		if err != nil {
			return false, err
		}
		return re.MatchString(str(in)), nil
	}
}

func tIterable(in any, _ []any, _ map[string]any) (bool, error) {
	switch in.(type) {
	case string, []any, map[string]any:
		return true, nil
	}
	return false, nil
}

func tIn(in any, args []any, _ map[string]any) (bool, error) {
	if len(args) != 1 {
		return false, errors.New("takes one sequence")
	}
	switch c := args[0].(type) {
	case string:
		return strings.Contains(c, str(in)), nil
	case []any:
		return contains(c, in), nil
	case map[string]any:
		s, ok := in.(string)
		_, has := c[s]
		return ok && has, nil
	}
	return false, fmt.Errorf("%s is not a sequence", typeName(args[0]))
}

func tSubset(in any, args []any, _ map[string]any) (bool, error) {
	if len(args) != 1 {
		return false, errors.New("takes one list")
	}
	a, err := listOf(in)
	if err != nil {
		return false, err
	}
	b, err := listOf(args[0])
	if err != nil {
		return false, err
	}
	for _, e := range a {
		if !contains(b, e) {
			return false, nil
		}
	}
	return true, nil
}

func allAny(in any, all bool) (bool, error) {
	l, err := listOf(in)
	if err != nil {
		return false, err
	}
	for _, e := range l {
		if truth(e) != all {
			return !all, nil
		}
	}
	return all, nil
}
