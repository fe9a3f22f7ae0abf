package jinja

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
)

// toGo turns a gonja value into plain Go data: nil, bool, int, float64, string, []any and
// map[string]any. Variables' own maps and lists come back as they are, not copied.
func toGo(v *exec.Value) any {
	if v == nil || v.IsNil() {
		return nil
	}
	return native(v.Interface())
}

func native(x any) any {
	switch x := x.(type) {
	case nil, bool, int, float64, string:
		return x
	case text:
		return string(x)
	case *exec.Value:
		return toGo(x)
	case vmap:
		return nativeMap(map[string]any(x))
	case hostVars:
		return nativeMap(map[string]any(x))
	case hostMap:
		return nativeMap(map[string]any(x))
	case vlist:
		return nativeList([]any(x))
	case map[string]any:
		return nativeMap(x)
	case []any:
		return nativeList(x)
	case exec.ValuesList:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toGo(e)
		}
		return out
	case *exec.Dict:
		return dictMap(x)
	case exec.Dict:
		return dictMap(&x)
	}
	return nativeReflect(reflect.ValueOf(x))
}

func dictMap(d *exec.Dict) map[string]any {
	out := make(map[string]any, len(d.Pairs))
	for _, p := range d.Pairs {
		out[Str(toGo(p.Key))] = toGo(p.Value)
	}
	return out
}

// nativeMap and nativeList copy only when an element needs converting.
func nativeMap(m map[string]any) map[string]any {
	var out map[string]any
	for k, e := range m {
		if n := native(e); !same(n, e) {
			if out == nil {
				out = make(map[string]any, len(m))
				for k2, e2 := range m {
					out[k2] = e2
				}
			}
			out[k] = n
		}
	}
	if out == nil {
		return m
	}
	return out
}

func nativeList(l []any) []any {
	var out []any
	for i, e := range l {
		if n := native(e); !same(n, e) {
			if out == nil {
				out = slices.Clone(l)
			}
			out[i] = n
		}
	}
	if out == nil {
		return l
	}
	return out
}

// same reports whether native left a value as it was (maps and lists by identity).
func same(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b) && (a == nil || reflect.TypeOf(a).Comparable() && a == b)
}

func nativeReflect(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int(v.Uint())
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Slice, reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = native(v.Index(i).Interface())
		}
		return out
	case reflect.Map:
		out := make(map[string]any, v.Len())
		it := v.MapRange()
		for it.Next() {
			out[Str(native(it.Key().Interface()))] = native(it.Value().Interface())
		}
		return out
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return native(v.Elem().Interface())
	}
	if v.CanInterface() {
		return v.Interface()
	}
	return nil
}

// truth is Python's truth value, which Jinja conditions use.
func truth(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case text:
		return x != ""
	case int:
		return x != 0
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

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
		for i, k := range slices.Sorted(mapsKeys(x)) {
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

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
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

// literal is Ansible's last step of templating: text that starts like a list or a dict, or is
// True or False, becomes that value when it is a Python literal; any other text stays text.
func literal(s string) any {
	if s == "True" {
		return true
	}
	if s == "False" {
		return false
	}
	if s == "" || (s[0] != '[' && s[0] != '{') {
		return s
	}
	c, err := parseUncached("{{ "+s+" }}", true)
	if err != nil || c.expr == nil || c.expr.Condition != nil || !isLiteral(c.expr.Expression) {
		return s
	}
	v := evaluator(exec.EmptyContext()).Eval(c.expr.Expression)
	if v.IsError() {
		return s
	}
	return toGo(v)
}

// isLiteral reports whether an expression is what Python's ast.literal_eval accepts.
func isLiteral(e nodes.Expression) bool {
	switch n := e.(type) {
	case *nodes.String, *nodes.Integer, *nodes.Float:
		return true
	case *nodes.Bool:
		return n.Location.Val == "True" || n.Location.Val == "False"
	case *nodes.None:
		return n.Location.Val == "None"
	case *nodes.UnaryExpression:
		_, isInt := n.Term.(*nodes.Integer)
		_, isFloat := n.Term.(*nodes.Float)
		return isInt || isFloat
	case *nodes.List:
		return allLiteral(n.Val)
	case *nodes.Tuple:
		return allLiteral(n.Val)
	case *nodes.Dict:
		for _, p := range n.Pairs {
			if !isLiteral(p.Key) || !isLiteral(p.Value) {
				return false
			}
		}
		return true
	}
	return false
}

func allLiteral(es []nodes.Expression) bool {
	for _, e := range es {
		if !isLiteral(e) {
			return false
		}
	}
	return true
}
