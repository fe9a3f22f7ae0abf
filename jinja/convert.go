package jinja

import (
	"reflect"
	"slices"

	"github.com/nikolalohinski/gonja/v2/exec"
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
	keys := make([]string, 0, len(d.Pairs))
	for _, p := range d.Pairs {
		k := Str(toGo(p.Key))
		out[k] = toGo(p.Value)
		keys = append(keys, k)
	}
	SetOrder(out, keys)
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
	CopyOrder(out, m)
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
