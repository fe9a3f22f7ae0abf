package jinja

import (
	"reflect"
	"unsafe"

	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// gonja computes **, // and % its own way (floats for 2 ** 10, // truncating toward zero, %
// on integers only), and == and != by Go's types (a string a filter made is not the same
// literal, 1 is not true). The walker replaces each such operation by a call of one of these
// hidden filters, which follow Python; an undefined operand stays undefined, so it fails where
// it is used, as Ansible's does.
var pyOps = map[tokens.Type]string{tokens.Power: "__pow", tokens.FloorDivision: "__floordiv",
	tokens.Modulo: "__mod", tokens.Multiply: "__mul", tokens.Equals: "__eq", tokens.Ne: "__ne"}

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
