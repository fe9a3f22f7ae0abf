package runner

import (
	"fmt"
	"github.com/kupgrade/kupgrade/jinja"
	"math/rand/v2"
)

// withLookups are the with_* loops: each turns its terms (the rendered loop, as a list: text
// is one term) into the loop's items, as the Ansible lookup of the same name does.
var withLookups = map[string]func(terms []any, f fileFinder) ([]any, error){
	"items":         func(terms []any, _ fileFinder) ([]any, error) { return flattenOnce(terms), nil },
	"list":          func(terms []any, _ fileFinder) ([]any, error) { return terms, nil },
	"dict":          func(terms []any, _ fileFinder) ([]any, error) { return dictItems(terms) },
	"indexed_items": func(terms []any, _ fileFinder) ([]any, error) { return indexedItems(terms), nil },
	"flattened":     func(terms []any, _ fileFinder) ([]any, error) { return flattenAll(terms), nil },
	"together":      func(terms []any, _ fileFinder) ([]any, error) { return together(terms) },
	"nested":        func(terms []any, _ fileFinder) ([]any, error) { return nested(terms) },
	"sequence":      func(terms []any, _ fileFinder) ([]any, error) { return sequence(terms) },
	"subelements":   func(terms []any, _ fileFinder) ([]any, error) { return subelements(terms) },
	"random_choice": func(terms []any, _ fileFinder) ([]any, error) { return randomChoice(terms), nil },
	"first_found":   firstFound,
	"fileglob":      fileglob,
}

// withItems turns a with_* loop's rendered value into its items.
func withItems(with string, v any, f fileFinder) ([]any, error) {
	lookup, ok := withLookups[with]
	if !ok {
		return nil, fmt.Errorf("with_%s is not supported by kupgrade", with)
	}
	return lookup(listify(v), f)
}

// listify is Ansible's listify_lookup_plugin_terms: text (and any single value) is one term.
func listify(v any) []any {
	if l, ok := toList(v); ok && v != nil {
		return l
	}
	if v == nil {
		return []any{nil}
	}
	return []any{v}
}

// flattenOnce is the items lookup: lists among the terms give their elements.
func flattenOnce(terms []any) []any {
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		if l, ok := t.([]any); ok {
			out = append(out, l...)
		} else {
			out = append(out, t)
		}
	}
	return out
}

// flattenAll is the flattened lookup: lists at any depth give their elements; a "None" or
// "null" term ends the list, as in Ansible.
func flattenAll(terms []any) []any {
	var out []any
	for _, t := range terms {
		if t == "None" || t == "null" {
			break
		}
		if l, ok := t.([]any); ok {
			out = append(out, flattenAll(l)...)
		} else {
			out = append(out, t)
		}
	}
	return out
}

func dictItems(terms []any) ([]any, error) {
	var out []any
	for _, t := range terms {
		m, ok := t.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("with_dict expects a dict, got %s", typeName(t))
		}
		for _, k := range jinja.Keys(m) {
			out = append(out, map[string]any{"key": k, "value": m[k]})
		}
	}
	return out, nil
}

func indexedItems(terms []any) []any {
	items := flattenOnce(terms)
	out := make([]any, len(items))
	for i, x := range items {
		out[i] = []any{i, x}
	}
	return out
}

// together zips the lists, the shorter filled with None (Python's zip_longest).
func together(terms []any) ([]any, error) {
	if len(terms) == 0 {
		return nil, fmt.Errorf("with_together requires at least one element in each list")
	}
	lists, n := make([][]any, len(terms)), 0
	for i, t := range terms {
		lists[i] = listify(t)
		n = max(n, len(lists[i]))
	}
	out := make([]any, n)
	for j := range n {
		row := make([]any, len(lists))
		for i, l := range lists {
			if j < len(l) {
				row[i] = l[j]
			}
		}
		out[j] = row
	}
	return out, nil
}

// nested is every combination of one element of each list, the first list varying slowest.
func nested(terms []any) ([]any, error) {
	if len(terms) == 0 {
		return nil, fmt.Errorf("with_nested requires at least one element in the nested list")
	}
	out := listify(terms[0])
	for _, t := range terms[1:] {
		var next []any
		for _, x := range out {
			for _, y := range listify(t) {
				next = append(next, flattenOnce([]any{x, y}))
			}
		}
		out = next
	}
	return out, nil
}

func randomChoice(terms []any) []any {
	if len(terms) == 0 {
		return terms
	}
	return []any{terms[rand.IntN(len(terms))]}
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case []any:
		return "a list"
	case nil:
		return "None"
	}
	return fmt.Sprintf("%T", v)
}
