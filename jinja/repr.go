package jinja

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Str is Python's str() of a value, as Jinja writes it into text; None is the empty string
// (Ansible's finalize).
func Str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case text:
		return string(x)
	}
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

// writeRepr writes Python's repr() of v. Mappings are written in key order: a Go map has no
// order of its own (Ansible keeps the order the keys were written in).
func writeRepr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		b.WriteString(pyFloat(x))
	case string:
		b.WriteString(pyQuote(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range Keys(x) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyQuote(k))
			b.WriteString(": ")
			writeRepr(b, x[k])
		}
		b.WriteByte('}')
	default:
		n := native(v)
		if reflect.TypeOf(n) == reflect.TypeOf(v) {
			fmt.Fprint(b, v)
			return
		}
		writeRepr(b, n)
	}
}

// pyFloat is Python's repr of a float: always a decimal point or an exponent.
func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if e := strings.IndexByte(s, 'e'); e >= 0 {
		exp, _ := strconv.Atoi(s[e+1:])
		if exp >= -4 && exp < 16 {
			s = strconv.FormatFloat(f, 'f', -1, 64)
		} else {
			mant, ex := s[:e], s[e+1:]
			if len(ex) < 3 && (ex[0] == '-' || ex[0] == '+') {
				ex = ex[:1] + strings.Repeat("0", 3-len(ex)) + ex[1:]
			}
			return mant + "e" + ex
		}
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// pyQuote is Python's repr of a string.
func pyQuote(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
