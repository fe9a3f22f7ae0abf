package jinja

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// maxRepeat bounds what 'x' * n and range(n) may build (Jinja's sandbox has the same idea): a
// template that asks for more is a mistake, not a reason to exhaust the controller's memory.
const maxRepeat = 1 << 20

func opFilters() map[string]filter {
	return map[string]filter{"__pow": fPow, "__floordiv": fFloorDiv, "__mod": fMod, "__mul": fMul,
		"__eq": fEq, "__ne": fNe}
}

func fEq(in any, args []any, _ map[string]any) (any, error) { return pyEqual(in, args[0]), nil }
func fNe(in any, args []any, _ map[string]any) (any, error) { return !pyEqual(in, args[0]), nil }

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
