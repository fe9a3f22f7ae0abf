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
	return set
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
