package jinja

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

func listFilters() map[string]filter {
	return map[string]filter{
		"combine": fCombine, "dict2items": fDict2Items, "items2dict": fItems2Dict,
		"unique": fUnique, "union": fUnion, "difference": fDifference, "intersect": fIntersect,
		"symmetric_difference": fSymDiff, "flatten": fFlatten, "zip": fZip, "zip_longest": fZipLongest,
		"extract": fExtract, "product": fProduct, "join": fJoin, "dict": fDict,
	}
}

// listOf is the input as a list: a list, a mapping's keys (sorted), a string's characters.
func listOf(in any) ([]any, error) {
	switch x := in.(type) {
	case []any:
		return x, nil
	case map[string]any:
		return strList(slices.Sorted(maps.Keys(x))), nil
	case string:
		return strList(strings.Split(x, "")), nil
	case nil:
		return nil, fmt.Errorf("expected a list, got None")
	}
	return nil, fmt.Errorf("expected a list, got %T", in)
}

// pyEqual is Python's ==: 1 == 1.0, and lists and dicts compare by value.
func pyEqual(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func contains(list []any, v any) bool {
	return slices.ContainsFunc(list, func(e any) bool { return pyEqual(e, v) })
}

func uniq(list []any) []any {
	out := make([]any, 0, len(list))
	for _, e := range list {
		if !contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

func fUnique(in any, _ []any, _ map[string]any) (any, error) {
	l, err := listOf(in)
	if err != nil {
		return nil, err
	}
	return uniq(l), nil
}

// setOp applies a set operation between the input and the first argument, keeping the order
// of the input, as Ansible's mathstuff does for lists of unhashable items.
func setOp(keep func(a, b []any, e any) bool, both bool) filter {
	return func(in any, args []any, _ map[string]any) (any, error) {
		if len(args) != 1 {
			return nil, fmt.Errorf("takes one list")
		}
		a, err := listOf(in)
		if err != nil {
			return nil, err
		}
		b, err := listOf(args[0])
		if err != nil {
			return nil, err
		}
		var out []any
		for _, e := range uniq(a) {
			if keep(a, b, e) {
				out = append(out, e)
			}
		}
		if both {
			for _, e := range uniq(b) {
				if !contains(a, e) {
					out = append(out, e)
				}
			}
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	}
}

var (
	fUnion      = setOp(func(_, _ []any, _ any) bool { return true }, true)
	fDifference = setOp(func(_, b []any, e any) bool { return !contains(b, e) }, false)
	fIntersect  = setOp(func(_, b []any, e any) bool { return contains(b, e) }, false)
	fSymDiff    = setOp(func(_, b []any, e any) bool { return !contains(b, e) }, true)
)

// fCombine is combine(*dicts, recursive=False, list_merge='replace').
func fCombine(in any, args []any, kw map[string]any) (any, error) {
	var dicts []any
	if l, ok := in.([]any); ok {
		dicts = append(dicts, l...)
	} else {
		dicts = append(dicts, in)
	}
	for _, a := range args {
		if l, ok := a.([]any); ok {
			dicts = append(dicts, l...)
		} else {
			dicts = append(dicts, a)
		}
	}
	recursive := truth(kw["recursive"])
	merge, _ := kw["list_merge"].(string)
	out := map[string]any{}
	for _, d := range dicts {
		m, ok := d.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("failed to combine variables, expected dicts but got %s", typeName(d))
		}
		out = mergeMaps(out, m, recursive, merge)
	}
	return out, nil
}

func mergeMaps(a, b map[string]any, recursive bool, listMerge string) map[string]any {
	out := maps.Clone(a)
	for k, vb := range b {
		va, had := out[k]
		ma, aIsMap := va.(map[string]any)
		mb, bIsMap := vb.(map[string]any)
		la, aIsList := va.([]any)
		lb, bIsList := vb.([]any)
		switch {
		case had && recursive && aIsMap && bIsMap:
			out[k] = mergeMaps(ma, mb, true, listMerge)
		case had && aIsList && bIsList && listMerge == "append":
			out[k] = append(slices.Clone(la), lb...)
		case had && aIsList && bIsList && listMerge == "prepend":
			out[k] = append(slices.Clone(lb), la...)
		case had && aIsList && bIsList && listMerge == "append_rp":
			out[k] = append(keepMissing(la, lb), lb...)
		case had && aIsList && bIsList && listMerge == "prepend_rp":
			out[k] = append(slices.Clone(lb), keepMissing(la, lb)...)
		default:
			out[k] = vb
		}
	}
	return out
}

func keepMissing(a, b []any) []any {
	var out []any
	for _, e := range a {
		if !contains(b, e) {
			out = append(out, e)
		}
	}
	return out
}

func typeName(v any) string {
	t, _ := fTypeDebug(v, nil, nil)
	return t.(string)
}

// fDict2Items is dict2items(key_name='key', value_name='value'): a list of {key, value}
// mappings, in key order (a Go map has no order of its own).
func fDict2Items(in any, args []any, kw map[string]any) (any, error) {
	m, ok := in.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("dict2items requires a dictionary, got %s instead.", typeName(in))
	}
	kn, vn := str(arg(args, kw, 0, "key_name", "key")), str(arg(args, kw, 1, "value_name", "value"))
	out := make([]any, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, map[string]any{kn: k, vn: m[k]})
	}
	return out, nil
}

func fItems2Dict(in any, args []any, kw map[string]any) (any, error) {
	l, ok := in.([]any)
	if !ok {
		return nil, fmt.Errorf("items2dict requires a list, got %s instead.", typeName(in))
	}
	kn, vn := str(arg(args, kw, 0, "key_name", "key")), str(arg(args, kw, 1, "value_name", "value"))
	out := make(map[string]any, len(l))
	for _, it := range l {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("items2dict requires a list of dictionaries, got %s", typeName(it))
		}
		k, ok := m[kn]
		if !ok {
			return nil, fmt.Errorf("items2dict: an item has no %q", kn)
		}
		out[str(k)] = m[vn]
	}
	return out, nil
}

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

// fDict is Python's dict() of a list of pairs (or of a mapping).
func fDict(in any, _ []any, _ map[string]any) (any, error) {
	if m, ok := in.(map[string]any); ok {
		return m, nil
	}
	l, err := listOf(in)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(l))
	for _, e := range l {
		pair, ok := e.([]any)
		if !ok || len(pair) != 2 {
			return nil, fmt.Errorf("dict needs pairs, got %s", Str(e))
		}
		out[str(pair[0])] = pair[1]
	}
	return out, nil
}
