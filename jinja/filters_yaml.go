package jinja

import (
	"cmp"
	"strings"

	"gopkg.in/yaml.v3"
)

// fToYAML is to_yaml(indent=2, sort_keys=True): PyYAML's default flow style, collections of
// scalars in flow style.
func fToYAML(in any, args []any, kw map[string]any) (any, error) {
	indent, _ := kw["indent"].(int)
	y := &pyYAML{indent: cmp.Or(indent, 2), flow: true, sorted: truth(arg(nil, kw, 0, "sort_keys", true))}
	return text(y.text(in)), nil
}

// fToNiceYAML is to_nice_yaml(indent=4, sort_keys=True): block style throughout.
func fToNiceYAML(in any, args []any, kw map[string]any) (any, error) {
	indent, _ := arg(args, kw, 0, "indent", 4).(int)
	y := &pyYAML{indent: max(indent, 1), sorted: truth(arg(nil, kw, 1, "sort_keys", true))}
	return text(y.text(in)), nil
}

func fFromYAML(in any, _ []any, _ map[string]any) (any, error) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(str(in)), &n); err != nil {
		return nil, err
	}
	return decodeYAML(&n)
}

func fFromYAMLAll(in any, _ []any, _ map[string]any) (any, error) {
	dec := yaml.NewDecoder(strings.NewReader(str(in)))
	out := []any{}
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if err.Error() == "EOF" {
				return out, nil
			}
			return nil, err
		}
		v, err := decodeYAML(&n)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// decodeYAML is a document's value with its mappings' order.
func decodeYAML(n *yaml.Node) (any, error) {
	var v any
	if n.Kind == 0 {
		return nil, nil
	}
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	v = yamlNative(v)
	OrderYAML(n, v)
	return v, nil
}

func yamlNative(v any) any {
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			x[i] = yamlNative(e)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = yamlNative(e)
		}
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[Str(k)] = yamlNative(e)
		}
		return m
	}
	return v
}
