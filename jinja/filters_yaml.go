package jinja

import (
	"bytes"
	"strings"

	"gopkg.in/yaml.v3"
)

func fToYAML(in any, args []any, kw map[string]any) (any, error) {
	return yamlText(in, 4, true)
}

func fToNiceYAML(in any, args []any, kw map[string]any) (any, error) {
	indent, _ := arg(args, kw, 0, "indent", 4).(int)
	return yamlText(in, indent, false)
}

// yamlText writes YAML as PyYAML does: with flow, the collections that hold only scalars in
// flow style ([a, b]) and the others in block style.
func yamlText(in any, indent int, flow bool) (text, error) {
	var n yaml.Node
	if err := n.Encode(in); err != nil {
		return "", err
	}
	if flow {
		flowLeaves(&n)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(indent)
	if err := enc.Encode(&n); err != nil {
		return "", err
	}
	return text(b.String()), nil
}

func flowLeaves(n *yaml.Node) bool {
	leaf := true
	for _, c := range n.Content {
		if !flowLeaves(c) || c.Kind != yaml.ScalarNode {
			leaf = false
		}
	}
	if (n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode) && leaf {
		n.Style = yaml.FlowStyle
	}
	return n.Kind == yaml.ScalarNode
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
