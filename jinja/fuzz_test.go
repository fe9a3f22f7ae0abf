package jinja

import "testing"

// FuzzTemplate feeds arbitrary text to Render, RenderString and Cond: none may panic or hang.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{"{{ x | default('y') }}", "{% for i in l %}{{ i }}{% endfor %}",
		"{{ 'a' ~ 1 if x else 2 }}", "{{ x ** 2 // 3 % 4 }}", "{{ '%s' % x }}", "{{ a.b['c'][0] }}",
		"x is version('1.2', '<')", "{{ x | ansible.utils.ipmath }}", "[{{ x }}]", "{{ '\\\\d' }}"} {
		f.Add(s)
	}
	vars := map[string]any{"x": 1, "l": []any{1, "a"}, "a": map[string]any{"b": "{{ x }}"}}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Render(s, vars)
		_, _ = RenderString(s, vars)
		_, _ = Cond(s, vars)
	})
}
