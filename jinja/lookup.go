package jinja

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// LookupKey is the variable under which the caller (the runner) puts its Lookuper: lookup(),
// query() and q() call it. Without one they fail, naming the plugin.
const LookupKey = "\x00lookup"

// Lookuper runs Ansible's lookup plugins: name's results for the terms, with the keyword
// arguments (wantlist and errors are handled here) and the variables of the template.
type Lookuper interface {
	Lookup(name string, terms []any, kw map[string]any, vars map[string]any) ([]any, error)
}

// lookupFunction is lookup(name, terms..., k=v): the results joined with "," when they are all
// text, else the only result or the list, as Ansible's Templar does; wantlist=True (and
// query) keeps the list. errors='ignore' or 'warn' turn a failure into None.
func lookupFunction(wantList bool) func(*exec.Evaluator, *exec.VarArgs) (any, error) {
	return func(e *exec.Evaluator, p *exec.VarArgs) (any, error) {
		if len(p.Args) == 0 {
			return nil, errors.New("lookup() needs the name of a lookup plugin")
		}
		name, _ := toGo(p.Args[0]).(string)
		terms := make([]any, 0, len(p.Args)-1)
		for _, a := range p.Args[1:] {
			terms = append(terms, toGo(a))
		}
		kw := make(map[string]any, len(p.KwArgs))
		for k, v := range p.KwArgs {
			kw[k] = toGo(v)
		}
		terms = unstar(terms, kw)
		list := wantList || truth(kw["wantlist"]) // per call: the closure serves every lookup()
		onError, _ := kw["errors"].(string)
		delete(kw, "wantlist")
		delete(kw, "errors")
		out, err := runLookup(scopeOf(e.Environment.Context).vars, strings.TrimPrefix(name, "ansible.builtin."), terms, kw)
		var undef *UndefinedError
		if err != nil {
			if (onError == "ignore" || onError == "warn") && !errors.As(err, &undef) {
				return nil, nil
			}
			return nil, fmt.Errorf("lookup plugin '%s': %w", name, err)
		}
		return lookupResult(out, list), nil
	}
}

func runLookup(vars map[string]any, name string, terms []any, kw map[string]any) ([]any, error) {
	l, ok := vars[LookupKey].(Lookuper)
	if !ok {
		return nil, errors.New("lookups are not available here (no runner)")
	}
	return l.Lookup(name, terms, kw, vars)
}

func lookupResult(out []any, wantList bool) any {
	if wantList {
		if out == nil {
			out = []any{}
		}
		return out
	}
	strs := make([]string, 0, len(out))
	for _, x := range out {
		s, ok := x.(string)
		if !ok {
			if len(out) == 1 {
				return out[0]
			}
			return out
		}
		strs = append(strs, s)
	}
	return strings.Join(strs, ",")
}
