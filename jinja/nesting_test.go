package jinja

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/crashtest"
)

// Templates nested absurdly deep (brackets, block statements, a chain of operators or
// attributes as long as the text) are refused with a message, never a stack overflow: before,
// each of these killed the process (the test runs in a child process with a bounded stack, so
// that a regression fails it rather than killing the test binary).
func TestDeepNestingRefused(t *testing.T) {
	if !crashtest.InChild(t) {
		return
	}
	const n = 50000
	for name, src := range map[string]string{
		"parentheses": "{{ " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + " }}",
		"lists":       "line one\n{{ " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + " }}",
		"ifs":         strings.Repeat("{% if true %}", n) + "x" + strings.Repeat("{% endif %}", n),
		"additions":   "{{ 1" + strings.Repeat(" + 1", n) + " }}",
		"attributes":  "{{ x" + strings.Repeat(".a", n) + " }}",
		"ands":        "{{ 1" + strings.Repeat(" and 1", n) + " }}",
	} {
		_, err := RenderString(src, map[string]any{"x": 1})
		if err == nil || !strings.Contains(err.Error(), "nest more than") {
			t.Errorf("%s: %.200v; want the nesting refused", name, err)
		}
		if err := CheckTemplate(src); err == nil {
			t.Errorf("%s: CheckTemplate accepted it; a loader would let it through", name)
		}
		if inner := strings.TrimSuffix(strings.TrimPrefix(src, "{{ "), " }}"); inner != src {
			if _, err := Cond(inner, map[string]any{"x": 1}); err == nil {
				t.Errorf("%s: Cond accepted it", name)
			}
		}
	}
	_, err := RenderString("one\ntwo {{ "+strings.Repeat("(", MaxNesting+1)+"1 }}", nil)
	if err == nil || !strings.Contains(err.Error(), "line 2: brackets nest more than") {
		t.Errorf("error %v; want the line of the brackets", err)
	}
}

// Nesting within the bounds renders as Jinja2 renders it.
func TestNestingWithinBounds(t *testing.T) {
	for src, want := range map[string]string{
		"{{ " + strings.Repeat("(", MaxNesting) + "7" + strings.Repeat(")", MaxNesting) + " }}":       "7",
		strings.Repeat("{% if true %}", MaxNesting) + "x" + strings.Repeat("{% endif %}", MaxNesting): "x",
		"{{ 0" + strings.Repeat(" + 1", 500) + " }}":                                                  "500",
		"{{ {'a': {'b': [1, '((((']}}['a']['b'][1] }}":                                                "((((",
	} {
		if got, err := RenderString(src, nil); err != nil || got != want {
			t.Errorf("%.60s...: %q, %v; want %q", src, got, err, want)
		}
	}
}
