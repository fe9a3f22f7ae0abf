package jinja

import (
	"fmt"

	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
)

// MaxMacroDepth bounds how deep macro calls nest in one rendering. Jinja2 has no bound of its
// own but Python's recursion limit; without one a macro that calls itself without end grows the
// Go stack until the process dies.
const MaxMacroDepth = 100

// controlStructureSet is gonja's statements with the macro tag bounded (gonja's own set is left
// as it is).
func controlStructureSet() *exec.ControlStructureSet {
	set := exec.NewControlStructureSet(map[string]parser.ControlStructureParser{})
	set.Update(controlStructures.All)
	if p, ok := set.Get("macro"); ok {
		_ = set.Replace("macro", boundedMacroParser(p))
	}
	if p, ok := set.Get("for"); ok {
		_ = set.Replace("for", orderedForParser(p))
	}
	return set
}

// orderedForParser makes `for k in mapping` walk the keys in the mapping's order, as Python
// does (gonja sorts them): the mapping goes through __keys, which lists them. A loop with two
// targets (`for k, v in mapping`) is left to gonja.
func orderedForParser(parse parser.ControlStructureParser) parser.ControlStructureParser {
	return func(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
		cs, err := parse(p, args)
		if f, ok := cs.(*controlStructures.ForControlStructure); ok && err == nil && f.Value == "" {
			f.ObjectEvaluator = &nodes.FilteredExpression{Expression: f.ObjectEvaluator,
				Filters: []*nodes.FilterCall{{Token: f.ObjectEvaluator.Position(), Name: "__keys"}}}
		}
		return cs, err
	}
}

// iterating are gonja's filters that iterate over their input: given a mapping, they iterate
// over its keys, in its order as Python does (keysFirst), not in gonja's sorted order.
var iterating = []string{"list", "first", "last", "map", "select", "reject", "min", "max", "sort",
	"batch", "slice", "random", "groupby"}

func keysFirst(f exec.FilterFunction) exec.FilterFunction {
	return func(e *exec.Evaluator, in *exec.Value, p *exec.VarArgs) *exec.Value {
		return f(e, filterKeys(e, in, nil), p)
	}
}

// filterKeys is a mapping's keys in order; anything else passes as it is.
func filterKeys(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
	if !in.IsDict() {
		return in
	}
	if m, ok := toGo(in).(map[string]any); ok {
		return exec.AsValue(strList(Keys(m)))
	}
	return in
}

func boundedMacroParser(parse parser.ControlStructureParser) parser.ControlStructureParser {
	return func(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
		cs, err := parse(p, args)
		if m, ok := cs.(*controlStructures.MacroControlStructure); ok && err == nil {
			return &boundedMacro{m}, nil
		}
		return cs, err
	}
}

// boundedMacro is a macro definition whose calls count their depth in the rendering's scope.
type boundedMacro struct {
	*controlStructures.MacroControlStructure
}

func (b *boundedMacro) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) error {
	call, err := exec.MacroNodeToFunc(b.Macro, r)
	if err != nil {
		return fmt.Errorf("macro '%s': %w", b.Name, err)
	}
	s := scopeOf(r.Environment.Context)
	r.Environment.Context.Set(b.Name, exec.Macro(func(p *exec.VarArgs) *exec.Value {
		if s.macroDepth >= MaxMacroDepth {
			if s.tooDeep == nil {
				s.tooDeep = fmt.Errorf("line %d: macro '%s' nests calls more than %d deep (does it call itself without end?)",
					b.Position().Line, b.Name, MaxMacroDepth)
			}
			return exec.AsValue(s.tooDeep)
		}
		s.macroDepth++
		defer func() { s.macroDepth-- }()
		return call(p)
	}))
	return nil
}

// scopeOf is the scope a rendering runs in (see scope.bind); a context without one (none of
// ours) gets a scope of its own, so that the bound holds all the same.
func scopeOf(ctx *exec.Context) *scope {
	if v, ok := ctx.Get(scopeKey); ok {
		if s, ok := v.(*scope); ok {
			return s
		}
	}
	return newScope(nil)
}
