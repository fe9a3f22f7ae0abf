package jinja

import (
	"errors"
	"fmt"
	"strings"
)

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
