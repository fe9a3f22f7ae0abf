package jinja

import (
	"io"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
)

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

// strOutputs makes each {{ }} of a template with statements write Python's str() of its value,
// as renderPlain does for one without (gonja's renderer writes its own form of mappings and
// lists: sorted keys, strings unescaped).
func strOutputs(outs []*nodes.Output) {
	wrap := func(e nodes.Expression) nodes.Expression {
		if e == nil {
			return nil
		}
		return &nodes.FilteredExpression{Expression: e,
			Filters: []*nodes.FilterCall{{Token: e.Position(), Name: "__str"}}}
	}
	for _, o := range outs {
		o.Expression, o.Alternative = wrap(o.Expression), wrap(o.Alternative)
	}
}

// filterStr is Python's str() of a value, for strOutputs; an undefined or failed value goes
// through, to fail where gonja writes it.
func filterStr(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
	if in.IsError() || isUndefined(in) {
		return in
	}
	if t, ok := in.Interface().(text); ok {
		return exec.AsValue(string(t))
	}
	return exec.AsValue(Str(toGo(in)))
}
