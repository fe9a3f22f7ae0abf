package jinja

import (
	"fmt"
	"regexp"
	"strings"
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
		defer CopyOrder(out, x)
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
