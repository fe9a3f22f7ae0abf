package jinja

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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
