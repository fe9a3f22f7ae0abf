package jinja

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Display is a value as Ansible's default callback shows it in a task's result: text as it is,
// any other value as Python's json.dumps(v, indent=4, sort_keys=True, ensure_ascii=False)
// writes it (a list as ["a", "b"] over lines, never Go's [a b]).
func Display(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return DisplayJSON(v, 4)
}

// DisplayJSON is v as Python's json.dumps writes it with sort_keys=True and ensure_ascii=False:
// on one line with ", " and ": " when indent is 0, else indented by indent spaces a level.
func DisplayJSON(v any, indent int) string {
	return jsonStyle{indent: indent, lines: indent > 0, sorted: true}.text(v)
}

// jsonStyle is the arguments of Python's json.dumps that kupgrade writes with: indent (lines
// says whether there is one: json.dumps(indent=0) breaks lines without indenting), sort_keys
// and ensure_ascii. Unsorted mappings are written in their order (see order.go).
type jsonStyle struct {
	indent        int
	lines         bool
	sorted, ascii bool
}

func (st jsonStyle) text(v any) string {
	var b strings.Builder
	st.write(&b, native(v), 0)
	if st.ascii {
		return asciiJSON(b.String())
	}
	return b.String()
}

func (st jsonStyle) keys(m map[string]any) []string {
	if st.sorted {
		return slices.Sorted(maps.Keys(m))
	}
	return Keys(m)
}

func (st jsonStyle) write(b *strings.Builder, v any, level int) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		b.WriteString(jsonFloat(x))
	case string:
		writeJSONString(b, x)
	case []any:
		st.items(b, "[]", len(x), level, func(i int) { st.write(b, x[i], level+1) })
	case map[string]any:
		keys := st.keys(x)
		st.items(b, "{}", len(keys), level, func(i int) {
			writeJSONString(b, keys[i])
			b.WriteString(": ")
			st.write(b, x[keys[i]], level+1)
		})
	default:
		writeJSONString(b, fmt.Sprint(x))
	}
}

// items writes n items between the brackets, as json.dumps lays them out.
func (st jsonStyle) items(b *strings.Builder, brackets string, n, level int, item func(int)) {
	b.WriteByte(brackets[0])
	for i := range n {
		switch {
		case st.lines && i > 0:
			b.WriteByte(',')
			fallthrough
		case st.lines:
			b.WriteString("\n" + strings.Repeat(" ", st.indent*(level+1)))
		case i > 0:
			b.WriteString(", ")
		}
		item(i)
	}
	if st.lines && n > 0 {
		b.WriteString("\n" + strings.Repeat(" ", st.indent*level))
	}
	b.WriteByte(brackets[1])
}

// jsonFloat is Python's float repr, with json's names for the values JSON lacks.
func jsonFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	return pyFloat(f)
}

func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
