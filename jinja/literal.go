package jinja

import (
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
)

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
