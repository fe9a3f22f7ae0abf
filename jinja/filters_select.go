package jinja

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// selectAttr is Jinja's selectattr (keep true) and rejectattr (keep false): the items whose
// attribute passes the test, or is true. An item without the attribute gives the test an
// undefined value, so `defined` and `undefined` sort items by whether they have it; any other
// use of a missing attribute is Ansible's undefined error.
func selectAttr(keep bool) exec.FilterFunction {
	return func(e *exec.Evaluator, in *exec.Value, p *exec.VarArgs) *exec.Value {
		if in.IsError() {
			return in
		}
		if len(p.Args) < 1 {
			return fail("selectattr and rejectattr take an attribute name")
		}
		items, err := listOf(toGo(in))
		if err != nil {
			return fail("%v", err)
		}
		attr := Str(toGo(p.Args[0]))
		test := &exec.VarArgs{Args: p.Args[min(2, len(p.Args)):], KwArgs: p.KwArgs}
		out := make([]any, 0, len(items))
		for _, it := range items {
			v := attrValue(it, attr)
			var ok *exec.Value
			if len(p.Args) > 1 {
				ok = e.ExecuteTestByName(Str(toGo(p.Args[1])), v, test)
			} else if !isUndefined(v) {
				ok = exec.AsValue(truth(toGo(v)))
			} else {
				ok = v
			}
			if ok.IsError() || isUndefined(ok) {
				return ok
			}
			if ok.IsTrue() == keep {
				out = append(out, it)
			}
		}
		return exec.AsValue(out)
	}
}

// attrValue is Jinja's attribute getter: a dotted path whose whole-number parts index lists;
// undefined when a part is missing.
func attrValue(v any, path string) *exec.Value {
	if v, ok := attrPath(v, path); ok {
		return exec.AsValue(wrap(v))
	}
	return exec.AsValue(&Undefined{Name: path, Attr: true})
}

func step(v any, part string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		e, ok := x[part]
		return e, ok
	case []any:
		i, err := strconv.Atoi(part)
		if err != nil || i < -len(x) || i >= len(x) {
			return nil, false
		}
		if i < 0 {
			i += len(x)
		}
		return x[i], true
	}
	return nil, false
}

// fSum is sum(iterable, attribute=None, start=0) with Python's +: numbers add, lists join.
func fSum(in any, args []any, kw map[string]any) (any, error) {
	items, err := listOf(in)
	if err != nil {
		return nil, err
	}
	acc := arg(args, kw, 1, "start", 0)
	attr := arg(args, kw, 0, "attribute", nil)
	for _, it := range items {
		if attr != nil {
			v, ok := attrPath(it, Str(attr))
			if !ok {
				return nil, fmt.Errorf("an item has no attribute %q", Str(attr))
			}
			it = v
		}
		if acc, err = pyAdd(acc, it); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func attrPath(v any, path string) (any, bool) {
	for _, part := range strings.Split(path, ".") {
		next, ok := step(v, part)
		if !ok {
			return nil, false
		}
		v = next
	}
	return v, true
}

// pyAdd is Python's a + b for the values sum() meets.
func pyAdd(a, b any) (any, error) {
	switch x := a.(type) {
	case int:
		switch y := b.(type) {
		case int:
			return x + y, nil
		case float64:
			return float64(x) + y, nil
		case bool:
			return x + boolInt(y), nil
		}
	case float64:
		switch y := b.(type) {
		case int:
			return x + float64(y), nil
		case float64:
			return x + y, nil
		}
	case []any:
		if y, ok := b.([]any); ok {
			return append(append(make([]any, 0, len(x)+len(y)), x...), y...), nil
		}
	}
	return nil, fmt.Errorf("unsupported operand type(s) for +: '%s' and '%s'", typeName(a), typeName(b))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
