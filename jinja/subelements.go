package jinja

import (
	"fmt"
	"maps"
	"strings"
)

// fSubelements is Ansible's subelements filter: [element, subelement] for each subelement
// under key ("a.b" walks down) of each element; a missing key is an error unless skip_missing.
func fSubelements(in any, args []any, kw map[string]any) (any, error) {
	key, ok := arg(args, kw, 0, "subelements", nil).(string)
	if !ok {
		return nil, fmt.Errorf("subelements must be a key name")
	}
	return Subelements(in, key, truth(arg(args, kw, 1, "skip_missing", false)), false)
}

// Subelements pairs each element of elems (a list of mappings, or a mapping's values) with
// each item of the list under key. pop drops that key from the element, as Ansible's
// subelements lookup (with_subelements) does; the filter keeps it.
func Subelements(elems any, key string, skipMissing, pop bool) ([]any, error) {
	list, ok := elems.([]any)
	if m, isMap := elems.(map[string]any); isMap {
		for _, k := range Keys(m) {
			list = append(list, m[k])
		}
		ok = true
	}
	if !ok {
		return nil, fmt.Errorf("subelements expects a list or a dictionary, got %s", typeName(elems))
	}
	out := []any{}
	for _, e := range list {
		elem, subs, err := subList(e, strings.Split(key, "."), skipMissing, pop)
		if err != nil {
			return nil, err
		}
		for _, s := range subs {
			out = append(out, []any{elem, s})
		}
	}
	return out, nil
}

// subList walks the path in one element; with pop, the element returned is a copy without
// the last key.
func subList(e any, path []string, skipMissing, pop bool) (any, []any, error) {
	m, ok := e.(map[string]any)
	if !ok {
		return e, nil, fmt.Errorf("subelements expects a list of dictionaries, got %s", Str(e))
	}
	if truth(m["skipped"]) {
		return e, nil, nil
	}
	v, found := m[path[0]]
	switch {
	case !found && skipMissing:
		return e, nil, nil
	case !found:
		return e, nil, fmt.Errorf("could not find '%s' key in iterated item '%s'", path[0], Str(e))
	case len(path) > 1:
		inner, subs, err := subList(v, path[1:], skipMissing, pop)
		if pop && err == nil {
			m = maps.Clone(m)
			m[path[0]] = inner
		}
		return m, subs, err
	}
	l, ok := v.([]any)
	if !ok {
		return e, nil, fmt.Errorf("the key %s should point to a list, got '%s'", path[0], Str(v))
	}
	if pop {
		m = maps.Clone(m)
		delete(m, path[0])
	}
	return m, l, nil
}
