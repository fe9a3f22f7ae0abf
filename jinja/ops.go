package jinja

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unsafe"

	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// gonja computes **, // and % its own way (floats for 2 ** 10, // truncating toward zero, %
// on integers only). The walker replaces each such operation by a call of one of these hidden
// filters, which follow Python.
var pyOps = map[tokens.Type]string{tokens.Power: "__pow", tokens.FloorDivision: "__floordiv",
	tokens.Modulo: "__mod", tokens.Multiply: "__mul"}

// maxRepeat bounds what 'x' * n and range(n) may build (Jinja's sandbox has the same idea): a
// template that asks for more is a mistake, not a reason to exhaust the controller's memory.
const maxRepeat = 1 << 20

var (
	binaryType = reflect.TypeFor[*nodes.BinaryExpression]()
	testExType = reflect.TypeFor[*nodes.TestExpression]()
)

// rewriteOp returns the filtered expression that replaces an interface value holding one of
// those binary operations, or a test of kupgrade's (called as a filter: gonja calls a test
// through reflection, which a condition evaluated per host and task would pay each time), or an
// invalid Value.
func rewriteOp(v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Interface || v.IsNil() {
		return reflect.Value{}
	}
	if v.Elem().Type() == testExType {
		return rewriteTest((*nodes.TestExpression)(v.Elem().UnsafePointer()))
	}
	if v.Elem().Type() != binaryType {
		return reflect.Value{}
	}
	b := (*nodes.BinaryExpression)(v.Elem().UnsafePointer())
	name, ok := pyOps[b.Operator.Token.Type]
	if !ok {
		return reflect.Value{}
	}
	f := &nodes.FilteredExpression{Expression: b.Left, Filters: []*nodes.FilterCall{{
		Token: b.Operator.Token, Name: name, Args: []nodes.Expression{b.Right}, Kwargs: map[string]nodes.Expression{},
	}}}
	return reflect.ValueOf(f)
}

func rewriteTest(t *nodes.TestExpression) reflect.Value {
	if _, ok := testFilters[t.Test.Name]; !ok {
		return reflect.Value{}
	}
	args := t.Test.Args
	if len(args) == 1 {
		if tuple, ok := args[0].(*nodes.Tuple); ok {
			args = tuple.Val
		}
	}
	return reflect.ValueOf(&nodes.FilteredExpression{Expression: t.Expression, Filters: []*nodes.FilterCall{{
		Token: t.Test.Token, Name: testPrefix + t.Test.Name, Args: args, Kwargs: t.Test.Kwargs,
	}}})
}

// testPrefix names the filter form of a test.
const testPrefix = "__test_"

// testFilters are kupgrade's tests as filters giving a boolean.
var testFilters = func() map[string]exec.FilterFunction {
	m := map[string]exec.FilterFunction{}
	for name, t := range ansibleTests() {
		fn := t.(testFn)
		m[name] = func(e *exec.Evaluator, in *exec.Value, p *exec.VarArgs) *exec.Value {
			ok, err := fn(e, in, p)
			if err != nil {
				return exec.AsValue(err)
			}
			return exec.AsValue(ok)
		}
	}
	return m
}()

// settable is v (addressable, possibly an unexported field) as a value that can be set.
func settable(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func opFilters() map[string]filter {
	return map[string]filter{"__pow": fPow, "__floordiv": fFloorDiv, "__mod": fMod, "__mul": fMul}
}

func fPow(in any, args []any, _ map[string]any) (any, error) {
	a, b := in, args[0]
	ia, aInt := a.(int)
	ib, bInt := b.(int)
	if aInt && bInt && ib >= 0 {
		r := 1
		for range ib {
			r *= ia
		}
		return r, nil
	}
	fa, okA := number(a)
	fb, okB := number(b)
	if !okA || !okB {
		return nil, errors.New("unsupported operand type(s) for **")
	}
	return math.Pow(fa, fb), nil
}

func fFloorDiv(in any, args []any, _ map[string]any) (any, error) {
	ia, aInt := in.(int)
	ib, bInt := args[0].(int)
	if aInt && bInt {
		if ib == 0 {
			return nil, errors.New("integer division or modulo by zero")
		}
		q := ia / ib
		if (ia%ib != 0) && ((ia < 0) != (ib < 0)) {
			q--
		}
		return q, nil
	}
	fa, okA := number(in)
	fb, okB := number(args[0])
	if !okA || !okB {
		return nil, errors.New("unsupported operand type(s) for //")
	}
	if fb == 0 {
		return nil, errors.New("float floor division by zero")
	}
	return math.Floor(fa / fb), nil
}

// fMod is Python's %: printf-style formatting on a string, the modulo (with the sign of the
// divisor) on numbers.
func fMod(in any, args []any, _ map[string]any) (any, error) {
	if s, ok := in.(string); ok {
		fmtArgs, isList := args[0].([]any)
		if !isList {
			fmtArgs = []any{args[0]}
		}
		return pyPercent(s, fmtArgs)
	}
	ia, aInt := in.(int)
	ib, bInt := args[0].(int)
	if aInt && bInt {
		if ib == 0 {
			return nil, errors.New("integer division or modulo by zero")
		}
		r := ia % ib
		if r != 0 && (r < 0) != (ib < 0) {
			r += ib
		}
		return r, nil
	}
	fa, okA := number(in)
	fb, okB := number(args[0])
	if !okA || !okB || fb == 0 {
		return nil, errors.New("unsupported operands for %")
	}
	r := math.Mod(fa, fb)
	if r != 0 && (r < 0) != (fb < 0) {
		r += fb
	}
	return r, nil
}

// fMul is Python's *: numbers, or a string or list repeated.
func fMul(in any, args []any, _ map[string]any) (any, error) {
	a, b := in, args[0]
	if _, ok := a.(int); ok {
		if _, seq := b.(string); seq {
			a, b = b, a
		} else if _, seq := b.([]any); seq {
			a, b = b, a
		}
	}
	if n, ok := b.(int); ok {
		switch x := a.(type) {
		case string:
			if n <= 0 {
				return "", nil
			}
			if len(x)*n > maxRepeat {
				return nil, errors.New("repeat: the result would be too long")
			}
			return strings.Repeat(x, n), nil
		case []any:
			if len(x)*max(n, 0) > maxRepeat {
				return nil, errors.New("repeat: the result would be too long")
			}
			out := []any{}
			for range n {
				out = append(out, x...)
			}
			return out, nil
		case int:
			return x * n, nil
		}
	}
	fa, okA := number(a)
	fb, okB := number(b)
	if !okA || !okB {
		return nil, fmt.Errorf("unsupported operand types for *: %s and %s", typeName(a), typeName(b))
	}
	return fa * fb, nil
}

// rangeFunction is Python's range() as a list, bounded by maxRepeat.
func rangeFunction(_ *exec.Evaluator, p *exec.VarArgs) ([]any, error) {
	var n []int
	for _, a := range p.Args {
		i, ok := toGo(a).(int)
		if !ok {
			return nil, errors.New("range: arguments must be integers")
		}
		n = append(n, i)
	}
	start, stop, step := 0, 0, 1
	switch len(n) {
	case 1:
		stop = n[0]
	case 2:
		start, stop = n[0], n[1]
	case 3:
		start, stop, step = n[0], n[1], n[2]
	default:
		return nil, errors.New("range expected 1 to 3 integers")
	}
	if step == 0 {
		return nil, errors.New("range() arg 3 must not be zero")
	}
	if (stop-start)/step > maxRepeat {
		return nil, errors.New("range too big")
	}
	out := []any{}
	for i := start; (step > 0 && i < stop) || (step < 0 && i > stop); i += step {
		out = append(out, i)
	}
	return out, nil
}
