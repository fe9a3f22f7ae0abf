package jinja

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// fToJSON is to_json(sort_keys=False): json.dumps on one line, mappings in their order.
func fToJSON(in any, args []any, kw map[string]any) (any, error) {
	sorted := truth(kw["sort_keys"])
	return text(jsonStyle{sorted: sorted, ascii: true}.text(in)), nil
}

// fToNiceJSON is to_nice_json(indent=4, sort_keys=True).
func fToNiceJSON(in any, args []any, kw map[string]any) (any, error) {
	indent, _ := arg(args, kw, 0, "indent", 4).(int)
	sorted := truth(arg(args, kw, 1, "sort_keys", true))
	return text(jsonStyle{indent: indent, lines: true, sorted: sorted, ascii: true}.text(in)), nil
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
	v = jsonNative(v)
	return v, OrderJSON([]byte(str(in)), v)
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
