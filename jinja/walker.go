package jinja

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// walker visits the whole syntax tree (gonja's control structures keep their expressions in
// unexported fields, which reflection can read): it collects the names the template reads and
// refuses the filters and tests kupgrade does not have, at load time.
type walker struct {
	seen  map[uintptr]bool
	names map[string]bool
	err   error
	depth int // nodes open on the way down, bounded by maxTreeDepth
	outs  []*nodes.Output
}

var (
	nameType   = reflect.TypeFor[*nodes.Name]()
	filterType = reflect.TypeFor[*nodes.FilterCall]()
	testType   = reflect.TypeFor[*nodes.TestCall]()
	tokenType  = reflect.TypeFor[*tokens.Token]()
	callType   = reflect.TypeFor[*nodes.Call]()
	outputType = reflect.TypeFor[*nodes.Output]()
)

// unsupportedCalls are Ansible's global functions kupgrade does not have: a call of one is
// refused at load time rather than read as an undefined variable.
var unsupportedCalls = map[string]bool{"now": true, "undef": true}

func (w *walker) walk(v reflect.Value) {
	if w.err != nil || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == tokenType || w.seen[v.Pointer()] {
			return
		}
		if w.depth++; w.depth > maxTreeDepth {
			w.err = fmt.Errorf("expressions or statements nest more than %d deep", maxTreeDepth)
			return
		}
		w.seen[v.Pointer()] = true
		w.visit(v)
		w.walk(v.Elem())
		w.depth--
	case reflect.Interface:
		if r := rewriteOp(v); r.IsValid() && v.CanAddr() {
			v = settable(v)
			v.Set(r)
		}
		w.walk(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			w.walk(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			w.walk(v.Index(i))
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			w.walk(it.Value())
		}
	}
}

func (w *walker) visit(v reflect.Value) {
	e := v.Elem()
	switch v.Type() {
	case outputType:
		w.outs = append(w.outs, (*nodes.Output)(v.UnsafePointer()))
	case nameType:
		w.names[e.Field(0).Elem().FieldByName("Val").String()] = true
	case callType:
		if n, ok := (*nodes.Call)(v.UnsafePointer()).Func.(*nodes.Name); ok && unsupportedCalls[n.Name.Val] {
			w.err = unsupported("function", n.Name.Val)
		}
	case filterType:
		if name := e.FieldByName("Name").String(); !jenv.Filters.Exists(name) {
			w.err = unsupported("filter", name)
		}
	case testType:
		if name := e.FieldByName("Name").String(); !jenv.Tests.Exists(name) {
			w.err = unsupported("test", name)
		}
		// gonja reads `is version('1.2', '<')` as one tuple argument: spread it.
		tc := (*nodes.TestCall)(v.UnsafePointer())
		if len(tc.Args) == 1 {
			if t, ok := tc.Args[0].(*nodes.Tuple); ok {
				tc.Args = t.Val
			}
		}
	}
}

func unsupported(what, name string) error {
	return fmt.Errorf("%s '%s' is not supported by kupgrade", what, strings.ReplaceAll(name, dotMark, "."))
}
