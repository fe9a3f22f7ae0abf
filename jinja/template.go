package jinja

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
)

// isTemplate reports whether s holds Jinja code at all; other strings are left as they are.
func isTemplate(s string) bool {
	return strings.Contains(s, "{{") || strings.Contains(s, "{%")
}

// Render expands the Jinja in s as Ansible 2.14 does for module arguments and set_fact: the
// text is rendered, then a result that reads as a list, a dict or a boolean ("[...]", "{...}",
// "True") becomes one. A single expression giving a list, dict or boolean keeps it; a number
// becomes its text, None the empty string. A string without "{{" or "{%" comes back unchanged.
func Render(s string, vars map[string]any) (any, error) {
	if !isTemplate(s) {
		return s, nil
	}
	return newScope(vars).render(s, true)
}

// singleVar is "{{ name }}" and nothing else: Ansible hands such a variable's number, boolean
// or None over as it is, without templating.
var singleVar = regexp.MustCompile(`^\{\{\s*(\w*)\s*\}\}$`)

// asIs is the value of a template that is one variable holding a number, a boolean or None.
func (s *scope) asIs(src string) (any, bool) {
	m := singleVar.FindStringSubmatch(src)
	if m == nil {
		return nil, false
	}
	v, ok := s.vars[m[1]]
	if !ok {
		return nil, false
	}
	switch v.(type) {
	case nil, bool, int, float64:
		return v, true
	}
	return nil, false
}

// RenderString renders s as text, as the template module and names do: nothing is converted.
func RenderString(s string, vars map[string]any) (string, error) {
	if !isTemplate(s) {
		return s, nil
	}
	v, err := newScope(vars).render(s, false)
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// RenderFile renders the text of a template file, as the template module does: like
// RenderString, but the backslashes in string literals are read as written (Ansible doubles
// them only in a playbook's own strings).
func RenderFile(s string, vars map[string]any) (string, error) {
	if !isTemplate(s) {
		return s, nil
	}
	c, err := parseFile(s)
	if err != nil {
		return "", fmt.Errorf("template: %w", err)
	}
	v, err := newScope(vars).run(c, s, false)
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// RenderValue renders every string inside v (a module's arguments: maps and lists nest). A value
// without templates comes back as it is, not copied. A map entry or list item that renders to
// omit is left out.
func RenderValue(v any, vars map[string]any) (any, error) {
	if !hasTemplate(v) {
		return v, nil
	}
	return newScope(vars).renderValue(v)
}

func (s *scope) renderValue(v any) (any, error) {
	switch x := v.(type) {
	case string:
		if !isTemplate(x) {
			return x, nil
		}
		return s.render(x, true)
	case map[string]any:
		if !hasTemplate(x) {
			return x, nil
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := s.renderValue(e)
			if err != nil {
				return nil, err
			}
			if r != Omit {
				out[k] = r
			}
		}
		return out, nil
	case []any:
		if !hasTemplate(x) {
			return x, nil
		}
		out := make([]any, 0, len(x))
		for _, e := range x {
			r, err := s.renderValue(e)
			if err != nil {
				return nil, err
			}
			if r != Omit {
				out = append(out, r)
			}
		}
		return out, nil
	}
	return v, nil
}

// hasTemplate reports whether v or anything inside it holds Jinja.
func hasTemplate(v any) bool {
	switch x := v.(type) {
	case string:
		return isTemplate(x)
	case map[string]any:
		for _, e := range x {
			if hasTemplate(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasTemplate(e) {
				return true
			}
		}
	}
	return false
}

// render evaluates the template src in this scope; native applies Ansible's conversion of the
// result (see Render), otherwise the result is text.
func (s *scope) render(src string, native bool) (any, error) {
	if native && strings.HasPrefix(src, "{{") {
		if v, ok := s.asIs(src); ok {
			return v, nil
		}
	}
	c, err := parse(src)
	if err != nil {
		return nil, fmt.Errorf("template %q: %w", clip(src, 80), err)
	}
	return s.run(c, src, native)
}

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

// renderPlain renders text and {{ }} (no statements) with Python's str() of each value, as
// Ansible's templating does; whitespace control follows gonja's renderer.
func renderPlain(c *compiled, ctx *exec.Context, w io.Writer) error {
	e := evaluator(ctx)
	for _, n := range c.tmpl.Root().Nodes {
		switch n := n.(type) {
		case *nodes.Data:
			io.WriteString(w, dataText(n))
		case *nodes.Output:
			v, err := evalNode(e, n)
			if err != nil {
				return err
			}
			io.WriteString(w, Str(v))
		}
	}
	return nil
}

func dataText(n *nodes.Data) string {
	out := n.Data.Val
	if n.RemoveFirstLineReturn {
		out = strings.TrimPrefix(strings.TrimPrefix(out, "\r\n"), "\n")
	}
	if n.Trim.Left {
		out = strings.TrimLeft(out, " \r\n\t")
	}
	if n.Trim.Right {
		out = strings.TrimRight(out, " \r\n\t")
	}
	if n.RemoveTrailingWhiteSpaceFromLastLine {
		if i := strings.LastIndex(out, "\n"); i >= 0 {
			out = out[:i+1] + strings.TrimRight(out[i+1:], " \t\r")
		} else {
			out = strings.TrimRight(out, " \t\r")
		}
	}
	return out
}

// keepNewlines gives out as many newlines at its end as src has, as Ansible does (trim_blocks
// eats the one after a closing statement).
func keepNewlines(src, out string) string {
	want := len(src) - len(strings.TrimRight(src, "\n"))
	if have := len(out) - len(strings.TrimRight(out, "\n")); have < want {
		out += strings.Repeat("\n", want-have)
	}
	return out
}

// nativeOne is Ansible's conversion of a template that is one expression: None is the empty
// string, a list, dict or boolean stays one, anything else becomes text (and text that reads as
// a list, dict or boolean becomes one).
func nativeOne(v any) any {
	switch x := v.(type) {
	case nil:
		return ""
	case bool, []any, map[string]any:
		return x
	case string:
		return literal(x)
	case text:
		return string(x)
	}
	return Str(v)
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

// Cond evaluates a condition (when, failed_when, changed_when, until, assert's that) as Ansible
// does: an expression without braces, whose Python truth is the answer. A condition written as
// a template ("{{ x }}") is rendered first, and a text result is evaluated as an expression.
func Cond(expr string, vars map[string]any) (bool, error) {
	t := strings.TrimSpace(expr)
	if t == "" {
		return false, errors.New("empty condition")
	}
	s := newScope(vars)
	if isTemplate(t) {
		v, err := s.render(t, true)
		if err != nil {
			return false, err
		}
		str, ok := v.(string)
		if !ok || str == "" {
			return truth(v), nil
		}
		t = str
	}
	if b, ok := boolWord(t); ok {
		if _, isVar := vars[t]; !isVar {
			return b, nil
		}
	}
	v, err := s.value(t)
	if err != nil {
		return false, err
	}
	return truth(v), nil
}

// value evaluates one expression (the inside of {{ }}) to its Go value.
func (s *scope) value(expr string) (out any, err error) {
	c, err := parseCond(expr)
	if err == nil && c.expr == nil {
		err = errors.New("not one expression")
	}
	if err != nil {
		return nil, fmt.Errorf("condition %q: %w", clip(expr, 80), err)
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("condition %q: cannot evaluate: %v", clip(expr, 80), r)
		}
	}()
	v, err := evalOutput(c, s.bind(c.names))
	if err != nil {
		return nil, renderErr(expr, err)
	}
	return v, nil
}

// boolWord reads the words YAML 1.1 (Ansible's YAML) takes for a boolean.
func boolWord(s string) (bool, bool) {
	if len(s) > 5 {
		return false, false
	}
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	return false, false
}

// CheckCond parses a condition (a `when:` expression, bare or in {{ }}) without evaluating it,
// so that a loader can refuse a typo before anything runs.
func CheckCond(expr string) error {
	t := strings.TrimSpace(expr)
	switch {
	case t == "":
		return errors.New("empty condition")
	case isTemplate(t):
		_, err := parse(t)
		return err
	}
	if _, ok := boolWord(t); ok {
		return nil
	}
	c, err := parseCond(t)
	if err == nil && c.expr == nil {
		err = errors.New("not one expression")
	}
	return err
}
