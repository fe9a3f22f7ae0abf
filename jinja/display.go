package jinja

import (
	"fmt"
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
	var b strings.Builder
	writeJSON(&b, native(v), indent, 0)
	return b.String()
}

func writeJSON(b *strings.Builder, v any, indent, level int) {
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
		writeJSONItems(b, "[]", len(x), indent, level, func(i int) { writeJSON(b, x[i], indent, level+1) })
	case map[string]any:
		keys := slices.Sorted(mapsKeys(x))
		writeJSONItems(b, "{}", len(keys), indent, level, func(i int) {
			writeJSONString(b, keys[i])
			b.WriteString(": ")
			writeJSON(b, x[keys[i]], indent, level+1)
		})
	default:
		writeJSONString(b, fmt.Sprint(x))
	}
}

// writeJSONItems writes n items between the brackets, as json.dumps lays them out.
func writeJSONItems(b *strings.Builder, brackets string, n, indent, level int, item func(int)) {
	b.WriteByte(brackets[0])
	for i := range n {
		switch {
		case indent > 0 && i > 0:
			b.WriteByte(',')
			fallthrough
		case indent > 0:
			b.WriteString("\n" + strings.Repeat(" ", indent*(level+1)))
		case i > 0:
			b.WriteString(", ")
		}
		item(i)
	}
	if indent > 0 && n > 0 {
		b.WriteString("\n" + strings.Repeat(" ", indent*level))
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
