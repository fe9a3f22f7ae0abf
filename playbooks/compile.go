package playbooks

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// compiled is one cache entry: expr.Compile is costly and the runner evaluates the same
// condition on every host, so each source is compiled once, errors included.
type compiled struct {
	prog *vm.Program
	err  error
}

var (
	programs     sync.Map // source -> *compiled
	programCount atomic.Int64
	vms          = sync.Pool{New: func() any { return new(vm.VM) }}
)

// maxCached bounds the cache: sources come from playbooks, so a real run stays far below it;
// past it (fuzzing, a pathological generator) programs are compiled and not kept.
const maxCached = 20000

// compileExpr compiles one expression (the inside of `{{ }}` or a `when:`).
func compileExpr(src string) (*vm.Program, error) {
	if c, ok := programs.Load(src); ok {
		c := c.(*compiled)
		return c.prog, c.err
	}
	p, err := compileUncached(src)
	if programCount.Load() < maxCached {
		if _, loaded := programs.LoadOrStore(src, &compiled{p, err}); !loaded {
			programCount.Add(1)
		}
	}
	return p, err
}

func compileUncached(src string) (*vm.Program, error) {
	if strings.TrimSpace(src) == "" {
		return nil, errors.New("empty expression")
	}
	rw, err := rewrite(src)
	if err != nil {
		return nil, err
	}
	scan := &scanner{lets: map[string]bool{}, callees: map[*ast.IdentifierNode]bool{}}
	opts := []expr.Option{expr.Patch(scan), expr.Patch(&varPatcher{scan: scan})}
	opts = append(opts, functionOptions...)
	p, err := compileSafely(rw, opts)
	if err != nil {
		return nil, exprMessage(err)
	}
	if scan.unknown != "" {
		return nil, fmt.Errorf("unknown filter or function %q", scan.unknown)
	}
	return p, nil
}

// compileSafely turns a panic inside expr's compiler into an error: no playbook text may crash
// kupgrade.
func compileSafely(src string, opts []expr.Option) (p *vm.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("cannot compile: %v", r)
		}
	}()
	return expr.Compile(src, opts...)
}

// exprMessage keeps the first line of expr's error: the rest is a caret drawing of the rewritten
// source, which would confuse more than help.
func exprMessage(err error) error {
	var fe *file.Error
	if errors.As(err, &fe) {
		return errors.New(fe.Message)
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return errors.New(msg)
}

// scanner records, before variables are rewritten, the names bound by `let` and the identifiers
// that are callees, so that neither is mistaken for a variable.
type scanner struct {
	lets    map[string]bool
	callees map[*ast.IdentifierNode]bool
	unknown string
}

func (s *scanner) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.VariableDeclaratorNode:
		s.lets[n.Name] = true
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok {
			s.callees[id] = true
			if _, known := functions[id.Value]; !known && s.unknown == "" {
				s.unknown = id.Value
			}
		}
	}
}

// varPatcher rewrites every variable path `a.b[0]` into `_var($env, "a", "b", 0)`, which fails
// with the path's name when any part is missing (Ansible's undefined-variable error), and into
// `_varsoft(...)` directly under default() and defined(), which yields "undefined" instead.
type varPatcher struct{ scan *scanner }

func (p *varPatcher) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		if n.Value == "$env" || p.scan.lets[n.Value] || p.scan.callees[n] {
			return
		}
		ast.Patch(node, &ast.CallNode{
			Callee:    &ast.IdentifierNode{Value: "_var"},
			Arguments: []ast.Node{&ast.IdentifierNode{Value: "$env"}, &ast.StringNode{Value: n.Value}},
		})
	case *ast.MemberNode:
		c, ok := varCall(n.Node)
		if !ok || n.Optional {
			return
		}
		switch n.Property.(type) {
		case *ast.StringNode, *ast.IntegerNode:
			c.Arguments = append(c.Arguments, n.Property)
			ast.Patch(node, c)
		}
	case *ast.CallNode:
		id, ok := n.Callee.(*ast.IdentifierNode)
		if ok && softFunctions[id.Value] && len(n.Arguments) > 0 {
			if c, ok := varCall(n.Arguments[0]); ok {
				c.Callee = &ast.IdentifierNode{Value: "_varsoft"}
			}
		}
	}
}

func varCall(n ast.Node) (*ast.CallNode, bool) {
	c, ok := n.(*ast.CallNode)
	if !ok {
		return nil, false
	}
	id, ok := c.Callee.(*ast.IdentifierNode)
	return c, ok && id.Value == "_var"
}

// run evaluates a compiled program over vars.
func run(p *vm.Program, vars map[string]any) (any, error) {
	if vars == nil {
		vars = map[string]any{}
	}
	m := vms.Get().(*vm.VM)
	out, err := m.Run(p, vars)
	vms.Put(m)
	if err != nil {
		var u *UndefinedError
		if errors.As(err, &u) {
			return nil, u
		}
		return nil, exprMessage(err)
	}
	return out, nil
}
