package jinja

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// DataKey is the key, in the variables given to Render and Cond, of a map[string]bool naming
// the variables that are data rather than templates: registered results and set_fact values,
// whose text is never rendered again (a command's output may well contain "{{"), as Ansible
// marks them unsafe. Every other variable whose value holds "{{" or "{%" is rendered when it is
// read, with the same variables: play vars may use each other in any order.
const DataKey = "\x00data"

// Omit is the value of `omit`: a module argument that renders to it is left out.
const Omit = "__omit_place_holder__kupgrade"

// scope is one top-level evaluation: the variables and the chain of variables being rendered,
// to stop a variable that refers to itself.
type scope struct {
	vars  map[string]any
	data  map[string]bool
	stack []string
	// macroDepth is how deep macro calls nest now; tooDeep is set when they passed
	// MaxMacroDepth, and fails the rendering whatever the template made of the error.
	macroDepth int
	tooDeep    error
}

func newScope(vars map[string]any) *scope {
	s := &scope{vars: vars}
	s.data, _ = vars[DataKey].(map[string]bool)
	return s
}

// scopeKey holds the scope in gonja's context, for the filters that need it. It cannot be
// written as a name in a template.
const scopeKey = "\x00scope"

// bind makes the context a template runs in: each name it reads, resolved.
func (s *scope) bind(names []string) *exec.Context {
	m := make(map[string]any, len(names)+2)
	for _, n := range names {
		m[n] = s.resolve(n)
	}
	m[scopeKey] = s
	return exec.NewContext(m)
}

// resolve is a variable's value as templates see it: rendered when it holds a template, an
// *Undefined (an error value that default() and `is defined` catch) when it is not set.
func (s *scope) resolve(name string) any {
	if name == "none" { // Jinja's lower-case None, whatever the variables (gonja knows None only)
		return nil
	}
	v, ok := s.vars[name]
	if !ok {
		if g, ok := globals[name]; ok {
			return g
		}
		return &Undefined{Name: name}
	}
	if m, ok := v.(map[string]any); ok && name == "hostvars" {
		return hostVars(m)
	}
	if s.data[name] || !hasTemplate(v) {
		return wrap(v)
	}
	for _, n := range s.stack {
		if n == name {
			return fmt.Errorf("recursive loop detected in template: %s -> %s", strings.Join(s.stack, " -> "), name)
		}
	}
	s.stack = append(s.stack, name)
	r, err := s.renderValue(v)
	s.stack = s.stack[:len(s.stack)-1]
	if err != nil {
		var u *UndefinedError
		if errors.As(err, &u) {
			return &Undefined{Name: name, Cause: u}
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return wrap(r)
}

// globals are the functions and constants of Jinja and Ansible that are not variables.
var globals = func() map[string]any {
	g := map[string]any{"omit": Omit, "range": rangeFunction, "lookup": lookupFunction(false),
		"query": lookupFunction(true), "q": lookupFunction(true)}
	for _, name := range []string{"dict", "namespace", "cycler", "joiner", "lipsum"} {
		if f, ok := builtins.GlobalFunctions.Get(name); ok {
			g[name] = f
		}
	}
	return g
}()

// vmap and vlist are the mappings and lists of variables as templates see them: a missing key
// or index is an *Undefined rather than gonja's bare error. They are the same maps and slices,
// retyped without copying.
type (
	vmap  map[string]any
	vlist []any
)

func wrap(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return vmap(x)
	case []any:
		return vlist(x)
	}
	return v
}

func (m vmap) GetAttribute(name string) (*exec.Value, bool) {
	if v, ok := m[name]; ok {
		return exec.ToValue(wrap(v)), true
	}
	// Never a nil *Value: gonja asks GetAttribute after a missing item (m['x']) and reads what
	// it answers.
	return exec.AsValue(&Undefined{Name: name, Attr: true}), false
}

func (m vmap) GetItem(key any) (*exec.Value, bool) {
	k, ok := key.(string)
	if !ok {
		k = fmt.Sprint(key)
	}
	if v, ok := m[k]; ok {
		return exec.ToValue(wrap(v)), true
	}
	return exec.AsValue(&Undefined{Name: k, Attr: true}), false
}

func (l vlist) GetItem(key any) (*exec.Value, bool) {
	i, ok := key.(int)
	if ok && i < 0 {
		i += len(l)
	}
	if !ok || i < 0 || i >= len(l) {
		return exec.AsValue(&Undefined{Name: fmt.Sprint(key), Attr: true}), false
	}
	return exec.ToValue(wrap(l[i])), true
}
