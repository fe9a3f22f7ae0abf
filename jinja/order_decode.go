package jinja

import (
	"bytes"
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"
)

// orderDepth bounds the walks below: deeper documents keep the order of their first levels only.
const orderDepth = 256

// FromYAML records the order of every mapping of v, the value n was decoded into, as the
// document wrote it; keys merged with << come first, as PyYAML puts them.
func OrderYAML(n *yaml.Node, v any) {
	orderFromYAML(n, v, 0)
}

func orderFromYAML(n *yaml.Node, v any, depth int) {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || depth > orderDepth {
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			orderFromYAML(n.Content[0], v, depth+1)
		}
	case yaml.SequenceNode:
		l, _ := v.([]any)
		for i, c := range n.Content {
			if i < len(l) {
				orderFromYAML(c, l[i], depth+1)
			}
		}
	case yaml.MappingNode:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		SetOrder(m, yamlKeys(n, 0))
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Tag != "!!merge" {
				orderFromYAML(n.Content[i+1], m[k.Value], depth+1)
			}
		}
	}
}

// yamlKeys lists a mapping's keys: the merged mappings' first, then its own.
func yamlKeys(n *yaml.Node, depth int) []string {
	var merged, own []string
	for i := 0; i+1 < len(n.Content) && depth <= orderDepth; i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		for val.Kind == yaml.AliasNode && val.Alias != nil {
			val = val.Alias
		}
		switch {
		case k.Tag == "!!merge" && val.Kind == yaml.MappingNode:
			merged = append(merged, yamlKeys(val, depth+1)...)
		case k.Tag == "!!merge" && val.Kind == yaml.SequenceNode:
			for _, c := range val.Content {
				for c.Kind == yaml.AliasNode && c.Alias != nil {
					c = c.Alias
				}
				if c.Kind == yaml.MappingNode {
					merged = append(merged, yamlKeys(c, depth+1)...)
				}
			}
		case k.Kind == yaml.ScalarNode:
			own = append(own, k.Value)
		}
	}
	return append(merged, own...)
}

// FromJSON records the order of every object of v, the value data was decoded into.
func OrderJSON(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	return orderFromJSON(d, v, 0)
}

func orderFromJSON(d *json.Decoder, v any, depth int) error {
	t, err := d.Token()
	if err != nil {
		return fmt.Errorf("read JSON: %w", err)
	}
	if depth > orderDepth {
		return skipJSON(d, t)
	}
	switch t {
	case json.Delim('{'):
		m, _ := v.(map[string]any)
		var keys []string
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return fmt.Errorf("read JSON: %w", err)
			}
			k, _ := kt.(string)
			keys = append(keys, k)
			if err := orderFromJSON(d, m[k], depth+1); err != nil {
				return err
			}
		}
		SetOrder(m, keys)
	case json.Delim('['):
		l, _ := v.([]any)
		for i := 0; d.More(); i++ {
			var e any
			if i < len(l) {
				e = l[i]
			}
			if err := orderFromJSON(d, e, depth+1); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	_, err = d.Token()
	return err
}

// skipJSON reads past the value t opens.
func skipJSON(d *json.Decoder, t json.Token) error {
	if t != json.Delim('{') && t != json.Delim('[') {
		return nil
	}
	for n := 1; n > 0; {
		t, err := d.Token()
		if err != nil {
			return fmt.Errorf("read JSON: %w", err)
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			n++
		case json.Delim('}'), json.Delim(']'):
			n--
		}
	}
	return nil
}
