package jinja

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
)

// run evaluates a parsed template; src is its text, for messages.
func (s *scope) run(c *compiled, src string, native bool) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("template %q: cannot evaluate: %v", clip(src, 80), r)
		}
	}()
	ctx := s.bind(c.names)
	if c.expr != nil {
		v, err := evalOutput(c, ctx)
		if err != nil {
			return nil, renderErr(src, err)
		}
		if native {
			return nativeOne(v), nil
		}
		return Str(v), nil
	}
	var b bytes.Buffer
	if c.plain {
		err = renderPlain(c, ctx, &b)
	} else {
		err = exec.NewRenderer(envWith(ctx), &b, jcfg, sourceLoader(""), c.tmpl).Execute()
	}
	if s.tooDeep != nil {
		return nil, fmt.Errorf("template %q: %w", clip(src, 80), s.tooDeep)
	}
	if err != nil {
		return nil, renderErr(src, err)
	}
	out = keepNewlines(src, b.String())
	if native {
		return literal(out.(string)), nil
	}
	return out, nil
}

func envWith(ctx *exec.Context) *exec.Environment {
	return &exec.Environment{Context: ctx, Filters: jenv.Filters, Tests: jenv.Tests,
		ControlStructures: jenv.ControlStructures, Methods: jenv.Methods}
}

// evalEnv is an evaluator and its environment in one allocation: conditions run per host and
// task, so each allocation counts.
type evalEnv struct {
	e   exec.Evaluator
	env exec.Environment
}

func evaluator(ctx *exec.Context) *exec.Evaluator {
	ee := &evalEnv{env: exec.Environment{Context: ctx, Filters: jenv.Filters, Tests: jenv.Tests,
		ControlStructures: jenv.ControlStructures, Methods: jenv.Methods}}
	ee.e = exec.Evaluator{Config: jcfg, Environment: &ee.env, Loader: sourceLoader("")}
	return &ee.e
}

// evalOutput evaluates the one {{ }} of c to a Go value.
func evalOutput(c *compiled, ctx *exec.Context) (any, error) {
	return evalNode(evaluator(ctx), c.expr)
}

// evalNode evaluates one {{ }} (with its inline if/else) to a Go value.
func evalNode(e *exec.Evaluator, n *nodes.Output) (any, error) {
	expr := n.Expression
	if n.Condition != nil {
		cond := e.Eval(n.Condition)
		if cond.IsError() {
			return nil, cond
		}
		if !cond.IsTrue() {
			if n.Alternative == nil {
				return nil, nil
			}
			expr = n.Alternative
		}
	}
	v := e.Eval(expr)
	if v.IsError() {
		return nil, v
	}
	if t, ok := v.Interface().(text); ok {
		return t, nil
	}
	return toGo(v), nil
}

// renderErr turns gonja's chain of wrapped errors into one message: an undefined variable is
// an *UndefinedError naming it.
func renderErr(src string, err error) error {
	if u, ok := undefinedOf(exec.AsValue(err)); ok {
		return u.err()
	}
	var fe *filterError
	if errors.As(err, &fe) {
		return fmt.Errorf("template %q: %w", clip(src, 80), fe)
	}
	msg := strings.TrimPrefix(err.Error(), "unable to execute template: ")
	return fmt.Errorf("template %q: %s", clip(src, 80), msg)
}
