package jinja

import (
	"fmt"
	"slices"
	"strings"
)

// fFlatten is flatten(levels=None, skip_nulls=True).
func fFlatten(in any, args []any, kw map[string]any) (any, error) {
	l, ok := in.([]any)
	if !ok {
		return nil, fmt.Errorf("flatten expects a list, got %s", typeName(in))
	}
	levels, hasLevels := arg(args, kw, 0, "levels", nil).(int)
	if !hasLevels {
		levels = -1
	}
	skip := truth(arg(args, kw, 1, "skip_nulls", true))
	return flatten(l, levels, skip), nil
}

func flatten(l []any, levels int, skipNulls bool) []any {
	out := []any{}
	for _, e := range l {
		if skipNulls && (e == nil || e == "None") {
			continue
		}
		if inner, ok := e.([]any); ok && levels != 0 {
			out = append(out, flatten(inner, levels-1, skipNulls)...)
			continue
		}
		out = append(out, e)
	}
	return out
}

func zipLists(in any, args []any, longest bool, fill any) (any, error) {
	lists := make([][]any, 0, len(args)+1)
	for _, a := range append([]any{in}, args...) {
		l, err := listOf(a)
		if err != nil {
			return nil, err
		}
		lists = append(lists, l)
	}
	n := len(lists[0])
	for _, l := range lists {
		if longest {
			n = max(n, len(l))
		} else {
			n = min(n, len(l))
		}
	}
	out := make([]any, n)
	for i := range out {
		row := make([]any, len(lists))
		for j, l := range lists {
			row[j] = fill
			if i < len(l) {
				row[j] = l[i]
			}
		}
		out[i] = row
	}
	return out, nil
}

func fZip(in any, args []any, _ map[string]any) (any, error) { return zipLists(in, args, false, nil) }

func fZipLongest(in any, args []any, kw map[string]any) (any, error) {
	return zipLists(in, args, true, kw["fillvalue"])
}

// fExtract is extract(container, morekeys=None): container[item][morekeys...].
func fExtract(in any, args []any, kw map[string]any) (any, error) {
	if len(args) < 1 {
		return nil, fmt.Errorf("extract needs a container")
	}
	v, err := index(args[0], in)
	if err != nil {
		return nil, err
	}
	keys := arg(args, kw, 1, "morekeys", nil)
	if keys == nil {
		return v, nil
	}
	more, ok := keys.([]any)
	if !ok {
		more = []any{keys}
	}
	for _, k := range more {
		if v, err = index(v, k); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func index(container, key any) (any, error) {
	switch c := container.(type) {
	case map[string]any:
		if v, ok := c[str(key)]; ok {
			return v, nil
		}
	case []any:
		if i, ok := key.(int); ok && i >= 0 && i < len(c) {
			return c[i], nil
		}
	}
	return nil, fmt.Errorf("%s has no item %s", typeName(container), Str(key))
}

func fProduct(in any, args []any, _ map[string]any) (any, error) {
	out := []any{[]any{}}
	for _, a := range append([]any{in}, args...) {
		l, err := listOf(a)
		if err != nil {
			return nil, err
		}
		var next []any
		for _, prefix := range out {
			for _, e := range l {
				next = append(next, append(slices.Clone(prefix.([]any)), e))
			}
		}
		out = next
	}
	return out, nil
}

// fJoin is Jinja's join(d=”, attribute=None), with Python's str() of each item.
func fJoin(in any, args []any, kw map[string]any) (any, error) {
	l, err := listOf(in)
	if err != nil {
		return nil, err
	}
	attr, _ := kw["attribute"].(string)
	parts := make([]string, len(l))
	for i, e := range l {
		if attr != "" {
			if e, err = index(e, attr); err != nil {
				return nil, err
			}
		}
		parts[i] = str(e)
	}
	return strings.Join(parts, str(arg(args, kw, 0, "d", ""))), nil
}
