package jinja

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/crashtest"
)

// A macro that calls itself (or another that calls it back) without end is refused with the
// line of the macro, whichever way the template is rendered, and whatever the template makes of
// the error; without the bound the process died of a stack overflow (the test runs in a child
// process so that a regression fails it rather than killing the test binary).
func TestRecursiveMacroRefused(t *testing.T) {
	if !crashtest.InChild(t) {
		return
	}
	self := "{# one #}\n{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"
	mutual := "{% macro f(n) %}{{ g(n) }}{% endmacro %}\n\n{% macro g(n) %}{{ f(n) | default('x') }}{% endmacro %}{{ f(0) }}"
	for src, line := range map[string]string{self: "line 2: macro 'f'", mutual: "line 1: macro 'f'"} {
		for name, render := range map[string]func(string, map[string]any) (any, error){
			"Render":       Render,
			"RenderString": func(s string, v map[string]any) (any, error) { return RenderString(s, v) },
			"RenderFile":   func(s string, v map[string]any) (any, error) { return RenderFile(s, v) },
			"Cond":         func(s string, v map[string]any) (any, error) { return Cond(s, v) },
		} {
			_, err := render(src, map[string]any{})
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d deep", MaxMacroDepth)) {
				t.Errorf("%s of %q: %v; want the macro depth refused", name, src, err)
				continue
			}
			if !strings.Contains(err.Error(), line) {
				t.Errorf("%s: %v; want %q", name, err, line)
			}
		}
	}
}

// A recursion that ends renders as Jinja2 renders it, up to the bound.
func TestRecursiveMacroWithinBound(t *testing.T) {
	src := "{% macro down(n) %}{% if n > 0 %}{{ n }} {{ down(n - 1) }}{% endif %}{% endmacro %}{{ down(N) }}"
	got, err := RenderString(src, map[string]any{"N": 5})
	if err != nil || got != "5 4 3 2 1 " {
		t.Errorf("down(5) = %q, %v; want \"5 4 3 2 1 \"", got, err)
	}
	got, err = RenderString(src, map[string]any{"N": MaxMacroDepth - 1})
	if err != nil || !strings.HasPrefix(got, fmt.Sprintf("%d %d ", MaxMacroDepth-1, MaxMacroDepth-2)) {
		t.Errorf("down(%d) = %.20q, %v; want it rendered", MaxMacroDepth-1, got, err)
	}
}
