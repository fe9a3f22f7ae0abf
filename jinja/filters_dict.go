package jinja

import (
	"fmt"
	"maps"
	"slices"
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

// mergeMaps merges b into a copy of a as Python's dict.update does: a's keys keep their place,
// b's new keys follow in b's order.
func mergeMaps(a, b map[string]any, recursive bool, listMerge string) map[string]any {
	out := maps.Clone(a)
	keys := Keys(a)
	if out == nil {
		out = map[string]any{}
	}
	for _, k := range Keys(b) {
		vb := b[k]
		va, had := out[k]
		if !had {
			keys = append(keys, k)
		}
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
	SetOrder(out, keys)
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
// mappings, in the mapping's order.
func fDict2Items(in any, args []any, kw map[string]any) (any, error) {
	m, ok := in.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("dict2items requires a dictionary, got %s instead.", typeName(in))
	}
	kn, vn := str(arg(args, kw, 0, "key_name", "key")), str(arg(args, kw, 1, "value_name", "value"))
	out := make([]any, 0, len(m))
	for _, k := range Keys(m) {
		item := map[string]any{kn: k, vn: m[k]}
		SetOrder(item, []string{kn, vn})
		out = append(out, item)
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
	keys := make([]string, 0, len(l))
	defer func() { SetOrder(out, keys) }()
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
		keys = append(keys, str(k))
	}
	return out, nil
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
	keys := make([]string, 0, len(l))
	defer func() { SetOrder(out, keys) }()
	for _, e := range l {
		pair, ok := e.([]any)
		if !ok || len(pair) != 2 {
			return nil, fmt.Errorf("dict needs pairs, got %s", Str(e))
		}
		out[str(pair[0])] = pair[1]
		keys = append(keys, str(pair[0]))
	}
	return out, nil
}
