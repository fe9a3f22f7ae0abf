package playbooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/expr-lang/expr/vm"
)

// template is a parsed string: literal text and `{{ }}` expressions in order.
type template struct {
	parts []part
}

type part struct {
	text string      // literal text, when prog is nil
	src  string      // the expression as written, for error messages
	prog *vm.Program // nil for literal text
}

var templates sync.Map // source -> *template or error

// Render expands the `{{ }}` expressions in s. A string that is one expression and nothing else
// keeps the expression's type ("{{ port }}" gives an int); mixed text gives a string. A string
// without `{{` comes back unchanged.
func Render(s string, vars map[string]any) (any, error) {
	if !strings.Contains(s, "{{") && !strings.Contains(s, "{%") {
		return s, nil
	}
	t, err := parseTemplate(s)
	if err != nil {
		return nil, fmt.Errorf("render %q: %w", clip(s, 80), err)
	}
	if len(t.parts) == 1 && t.parts[0].prog != nil {
		v, err := run(t.parts[0].prog, vars)
		if err != nil {
			return nil, fmt.Errorf("render %q: %w", clip(s, 80), err)
		}
		if isUndef(v) {
			return nil, nil
		}
		return v, nil
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.prog == nil {
			b.WriteString(p.text)
			continue
		}
		v, err := run(p.prog, vars)
		if err != nil {
			return nil, fmt.Errorf("render %q: %w", clip(s, 80), err)
		}
		b.WriteString(toString(v))
	}
	return b.String(), nil
}

// RenderString is Render with the result turned into text (lists and maps as JSON).
func RenderString(s string, vars map[string]any) (string, error) {
	v, err := Render(s, vars)
	if err != nil {
		return "", err
	}
	return toString(v), nil
}

// RenderValue renders every string inside v (a module's arguments: maps and lists nest).
func RenderValue(v any, vars map[string]any) (any, error) {
	switch v := v.(type) {
	case string:
		return Render(v, vars)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			r, err := RenderValue(e, vars)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			r, err := RenderValue(e, vars)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

// Cond evaluates a condition (when, failed_when, changed_when, until, assert's that). It is an
// expression without braces, as in Ansible; a condition written as "{{ x }}" is accepted too.
// The result must be a boolean, or a string Ansible's bool filter knows ("yes", "false"...).
func Cond(expr string, vars map[string]any) (bool, error) {
	var v any
	var err error
	if t := strings.TrimSpace(expr); strings.HasPrefix(t, "{{") {
		v, err = Render(t, vars)
	} else {
		var p *vm.Program
		if p, err = compileExpr(expr); err == nil {
			v, err = run(p, vars)
		}
		if err != nil {
			err = fmt.Errorf("condition %q: %w", clip(expr, 80), err)
		}
	}
	if err != nil {
		return false, err
	}
	switch v := v.(type) {
	case bool:
		return v, nil
	case nil, undefined:
		return false, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes", "on", "1":
			return true, nil
		case "false", "no", "off", "0", "":
			return false, nil
		}
		return false, fmt.Errorf("condition %q gave the string %q, not a boolean", clip(expr, 80), clip(v, 40))
	}
	return truthy(v), nil
}

// parseTemplate splits s into text and compiled expressions, cached by s.
func parseTemplate(s string) (*template, error) {
	if c, ok := templates.Load(s); ok {
		if err, isErr := c.(error); isErr {
			return nil, err
		}
		return c.(*template), nil
	}
	t, err := parseUncached(s)
	if programCount.Load() < maxCached {
		programCount.Add(1)
		if err != nil {
			templates.Store(s, err)
		} else {
			templates.Store(s, t)
		}
	}
	return t, err
}

func parseUncached(s string) (*template, error) {
	t := &template{}
	for s != "" {
		i := strings.Index(s, "{{")
		if j := strings.Index(s, "{%"); j >= 0 && (i < 0 || j < i) {
			return nil, errors.New("Jinja statements ({% %}) are not supported; use loop, when or an expression")
		}
		if i < 0 {
			t.parts = append(t.parts, part{text: s})
			break
		}
		if i > 0 {
			t.parts = append(t.parts, part{text: s[:i]})
		}
		end, err := exprEnd(s, i+2)
		if err != nil {
			return nil, err
		}
		src := s[i+2 : end]
		p, err := compileExpr(src)
		if err != nil {
			return nil, err
		}
		t.parts = append(t.parts, part{src: src, prog: p})
		s = s[end+2:]
	}
	return t, nil
}

// exprEnd finds the "}}" closing an expression that starts at i, skipping string literals and
// the braces of map literals inside it.
func exprEnd(s string, i int) (int, error) {
	depth := 0
	for j := i; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\'' || c == '"' || c == '`':
			end, err := scanString(s, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case c == '}' && strings.HasPrefix(s[j:], "}}"):
			return j, nil
		}
	}
	return 0, errors.New(`"{{" without its closing "}}"`)
}

// toString is how a value reads inside text: null as empty, lists and maps as JSON.
func toString(v any) string {
	switch v := v.(type) {
	case nil, undefined:
		return ""
	case string:
		return v
	case []byte:
		return string(v)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case fmt.Stringer:
		return v.String()
	}
	if b, err := json.Marshal(v); err == nil && (len(b) > 0 && (b[0] == '[' || b[0] == '{')) {
		return string(b)
	}
	return fmt.Sprint(v)
}
