package jinja

import (
	"errors"
	"fmt"
	"regexp"
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
	g := map[string]any{"omit": Omit, "range": rangeFunction}
	for _, name := range []string{"dict", "namespace", "cycler", "joiner", "lipsum"} {
		if f, ok := builtins.GlobalFunctions.Get(name); ok {
			g[name] = f
		}
	}
	return g
}()

// Undefined is the value of a variable or attribute that does not exist. It is an error value:
// anything but default(), `is defined` and `is undefined` that touches it fails with it.
type Undefined struct {
	Name  string          // the variable, or "'dict object' has no attribute 'x'" form
	Attr  bool            // Name is an attribute missing from a mapping
	Cause *UndefinedError // a variable holding a template that reads an undefined one
}

func (u *Undefined) Error() string { return u.err().Error() }

func (u *Undefined) err() *UndefinedError {
	if u.Cause != nil {
		return u.Cause
	}
	return &UndefinedError{Name: u.Name, Attr: u.Attr}
}

// GetAttribute keeps a chain of attributes of an undefined value undefined, as Ansible does:
// `a.b.c is defined` is false when a is not set.
func (u *Undefined) GetAttribute(string) (*exec.Value, bool) { return exec.AsValue(u), true }

// GetItem is GetAttribute for a[...].
func (u *Undefined) GetItem(any) (*exec.Value, bool) { return exec.AsValue(u), true }

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
	return nil, false
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

// hostVars is Ansible's hostvars: a host's variable holding a template is rendered when read,
// with that host's own variables (not all of every host's at once).
type (
	hostVars map[string]any
	hostMap  map[string]any
)

func (h hostVars) GetAttribute(name string) (*exec.Value, bool) { return h.GetItem(name) }

func (h hostVars) GetItem(key any) (*exec.Value, bool) {
	k := fmt.Sprint(key)
	switch v := h[k].(type) {
	case map[string]any:
		return exec.AsValue(hostMap(v)), true
	case nil:
		return exec.AsValue(&Undefined{Name: k, Attr: true}), false
	default:
		return exec.ToValue(wrap(v)), true
	}
}

func (h hostMap) GetAttribute(name string) (*exec.Value, bool) { return h.GetItem(name) }

func (h hostMap) GetItem(key any) (*exec.Value, bool) {
	k := fmt.Sprint(key)
	v, ok := h[k]
	if !ok {
		return exec.AsValue(&Undefined{Name: k, Attr: true}), false
	}
	// Only text is rendered: the host's registered results (maps) stay data.
	if s, isStr := v.(string); isStr && isTemplate(s) {
		return exec.ToValue(newScope(h).resolve(k)), true
	}
	return exec.ToValue(wrap(v)), true
}

// gonjaMissing is how gonja reports a missing attribute or item of a value that is not one of
// ours (a literal dict, an item of a loop over a filter's result).
var (
	gonjaMissing = regexp.MustCompile(`(?:attribute|item) '?([^' ]*)'? not found|Can't use Get(?:item|attr) on None`)
	// undefinedText is an *Undefined that gonja turned into text on the way (a filter's error).
	undefinedText = regexp.MustCompile(`'([^']*)' is undefined|'dict object' has no attribute '([^']*)'`)
)

// undefinedOf finds the *Undefined an error value carries, through gonja's wrapping.
func undefinedOf(v *exec.Value) (*Undefined, bool) {
	if v == nil || !v.IsError() {
		return nil, false
	}
	for err := v.Interface().(error); err != nil; {
		if u, ok := err.(*Undefined); ok {
			return u, true
		}
		var inner *exec.Value
		if errors.As(err, &inner) && inner != v {
			return undefinedOf(inner)
		}
		if m := gonjaMissing.FindStringSubmatch(err.Error()); m != nil {
			return &Undefined{Name: m[1], Attr: true}, true
		}
		if m := undefinedText.FindStringSubmatch(err.Error()); m != nil {
			return &Undefined{Name: m[1] + m[2], Attr: m[2] != ""}, true
		}
		return nil, false
	}
	return nil, false
}

// isUndefined reports whether v is an undefined value (not any other error).
func isUndefined(v *exec.Value) bool {
	_, ok := undefinedOf(v)
	return ok
}

// UndefinedError is a template or condition that read a variable nobody set.
type UndefinedError struct {
	Name string // the variable, or the attribute when Attr
	Attr bool
}

func (e *UndefinedError) Error() string {
	if e.Attr {
		return fmt.Sprintf("'dict object' has no attribute '%s'", e.Name)
	}
	return fmt.Sprintf("'%s' is undefined", e.Name)
}
