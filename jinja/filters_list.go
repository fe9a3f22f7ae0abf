package jinja

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

func listFilters() map[string]filter {
	return map[string]filter{
		"combine": fCombine, "dict2items": fDict2Items, "items2dict": fItems2Dict,
		"unique": fUnique, "union": fUnion, "difference": fDifference, "intersect": fIntersect,
		"symmetric_difference": fSymDiff, "flatten": fFlatten, "zip": fZip, "zip_longest": fZipLongest,
		"extract": fExtract, "product": fProduct, "subelements": fSubelements, "join": fJoin, "dict": fDict,
	}
}

// listOf is the input as a list: a list, a mapping's keys (sorted), a string's characters.
func listOf(in any) ([]any, error) {
	switch x := in.(type) {
	case []any:
		return x, nil
	case map[string]any:
		return strList(Keys(x)), nil
	case string:
		return strList(strings.Split(x, "")), nil
	case nil:
		return nil, fmt.Errorf("expected a list, got None")
	}
	return nil, fmt.Errorf("expected a list, got %T", in)
}

// pyEqual is Python's == on plain values: 1 == 1.0 == True, and lists and dicts compare by
// value, element by element (a dict's order does not count).
func pyEqual(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && listsEqual(x, y)
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && len(x) == len(y) && mapsEqual(x, y)
	}
	return reflect.DeepEqual(a, b)
}

func listsEqual(x, y []any) bool {
	for i := range x {
		if !pyEqual(x[i], y[i]) {
			return false
		}
	}
	return true
}

func mapsEqual(x, y map[string]any) bool {
	for k, v := range x {
		w, ok := y[k]
		if !ok || !pyEqual(v, w) {
			return false
		}
	}
	return true
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
