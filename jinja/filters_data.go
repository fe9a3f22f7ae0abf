package jinja

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

func fToJSON(in any, _ []any, _ map[string]any) (any, error) {
	s, err := jsonText(in, "", ", ", ": ")
	return text(s), err
}

func fToNiceJSON(in any, args []any, kw map[string]any) (any, error) {
	indent, _ := arg(args, kw, 0, "indent", 4).(int)
	s, err := jsonText(in, strings.Repeat(" ", indent), ",", ": ")
	return text(s), err
}

// jsonText is Python's json.dumps: ", " and ": " between items on one line, sorted keys (Go's
// encoder sorts them; Ansible's to_json keeps the written order), non-ASCII escaped.
func jsonText(in any, indent, comma, colon string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		return "", err
	}
	var out bytes.Buffer
	if indent != "" {
		if err := json.Indent(&out, bytes.TrimSpace(b.Bytes()), "", indent); err != nil {
			return "", err
		}
		return asciiJSON(out.String()), nil
	}
	return asciiJSON(spaceJSON(bytes.TrimSpace(b.Bytes()), comma, colon)), nil
}

// spaceJSON puts Python's separators between the items of compact JSON.
func spaceJSON(b []byte, comma, colon string) string {
	var out strings.Builder
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		out.WriteByte(c)
		switch {
		case inStr && c == '\\':
			i++
			out.WriteByte(b[i])
		case c == '"':
			inStr = !inStr
		case !inStr && c == ',':
			out.WriteString(comma[1:])
		case !inStr && c == ':':
			out.WriteString(colon[1:])
		}
	}
	return out.String()
}

func asciiJSON(s string) string {
	var out strings.Builder
	for _, r := range s {
		if r < 0x80 {
			out.WriteRune(r)
		} else if r < 0x10000 {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		}
	}
	return out.String()
}

func fFromJSON(in any, _ []any, _ map[string]any) (any, error) {
	var v any
	d := json.NewDecoder(strings.NewReader(str(in)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return jsonNative(v), nil
}

func jsonNative(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.Atoi(string(x)); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i, e := range x {
			x[i] = jsonNative(e)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = jsonNative(e)
		}
	}
	return v
}

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
	var v any
	if err := yaml.Unmarshal([]byte(str(in)), &v); err != nil {
		return nil, err
	}
	return yamlNative(v), nil
}

func fFromYAMLAll(in any, _ []any, _ map[string]any) (any, error) {
	dec := yaml.NewDecoder(strings.NewReader(str(in)))
	out := []any{}
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			if err.Error() == "EOF" {
				return out, nil
			}
			return nil, err
		}
		out = append(out, yamlNative(v))
	}
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

var hashes = map[string]func() hash.Hash{
	"md5": md5.New, "sha1": sha1.New, "sha256": sha256.New, "sha512": sha512.New,
	"sha224": sha256.New224, "sha384": sha512.New384,
}

func fHash(in any, args []any, kw map[string]any) (any, error) {
	return fHashOf(str(arg(args, kw, 0, "hashtype", "sha1")))(in, nil, nil)
}

func fHashOf(name string) filter {
	return func(in any, _ []any, _ map[string]any) (any, error) {
		h, ok := hashes[name]
		if !ok {
			return nil, fmt.Errorf("unknown hash type %q", name)
		}
		d := h()
		d.Write([]byte(str(in)))
		return hex.EncodeToString(d.Sum(nil)), nil
	}
}

// fFormat is Jinja's format filter: Python's printf-style "%s" % args.
func fFormat(in any, args []any, kw map[string]any) (any, error) {
	return pyPercent(str(in), args)
}

// pyPercent formats like Python's % operator for %s %r %d %i %f %x %o %e %g and %%.
func pyPercent(f string, args []any) (string, error) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		j := i + 1
		for j < len(f) && strings.IndexByte("-+ #0123456789.", f[j]) >= 0 {
			j++
		}
		if j >= len(f) {
			return "", fmt.Errorf("incomplete format")
		}
		spec, verb := f[i+1:j], f[j]
		i = j
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		if n >= len(args) {
			return "", fmt.Errorf("not enough arguments for format string")
		}
		a := args[n]
		n++
		switch verb {
		case 's':
			fmt.Fprintf(&b, "%"+spec+"s", str(a))
		case 'r':
			var r strings.Builder
			writeRepr(&r, a)
			fmt.Fprintf(&b, "%"+spec+"s", r.String())
		case 'd', 'i':
			v, _ := fInt(a, nil, nil)
			fmt.Fprintf(&b, "%"+spec+"d", v)
		case 'f', 'e', 'g', 'F', 'E', 'G':
			v, _ := fFloat(a, nil, nil)
			if !strings.Contains(spec, ".") && verb != 'g' && verb != 'G' {
				spec += ".6"
			}
			fmt.Fprintf(&b, "%"+spec+string(verb), v)
		case 'x', 'X', 'o':
			v, _ := fInt(a, nil, nil)
			fmt.Fprintf(&b, "%"+spec+string(verb), v)
		default:
			return "", fmt.Errorf("unsupported format character %q", verb)
		}
	}
	return b.String(), nil
}
