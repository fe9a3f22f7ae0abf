package playbooks

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func testVars() map[string]any {
	return map[string]any{
		"to_version":         "v1.30.2",
		"port":               6443,
		"ratio":              0.5,
		"flag":               "yes",
		"empty":              nil,
		"names":              []any{"a", "b"},
		"inventory_hostname": "controller-1",
		"kcfg":               map[string]any{"changed": true, "manifests": map[string]any{"kube-apiserver": "v1.30.2"}},
		"result":             map[string]any{"rc": 2, "stdout": " Kubernetes v1.30.2\n", "failed": true},
		"install":            "apt-get install kubelet={{ to_version[1:] }}-*",
		"loop_a":             "{{ loop_b }}",
		"loop_b":             "{{ loop_a }}",
		"output":             map[string]any{"stdout": "{{ not a template }}"},
	}
}

func TestRender(t *testing.T) {
	tests := []struct {
		src  string
		want any
	}{
		{"plain text", "plain text"},
		{"{{ port }}", 6443},
		{"{{ ratio }}", 0.5},
		{"{{ kcfg.changed }}", true},
		{"{{ names }}", []any{"a", "b"}},
		{"port={{ port }} host={{ inventory_hostname }}", "port=6443 host=controller-1"},
		{"{{ kcfg.manifests['kube-apiserver'] }}", "v1.30.2"},
		{"{{ to_version[1:] }}", "1.30.2"},
		{"{{ missing | default('d') }}", "d"},
		{"{{ kcfg.nothing.deeper | default(port) }}", 6443},
		{"{{ empty | default('was null') }}", "was null"},
		{"{{ port | string }}", "6443"},
		{"{{ '42' | int + 1 }}", 43},
		{"{{ to_version | upper }}", "V1.30.2"},
		{"{{ 'ABC' | lower }}", "abc"},
		{"{{ names | length }}", 2},
		{"{{ names | join(',') }}", "a,b"},
		{"{{ flag | bool }}", true},
		{"{{ result.stdout | trim }}", "Kubernetes v1.30.2"},
		{"{{ missing | default('  x ') | trim | upper }}", "X"},
		{"{{ names }} are", `["a","b"] are`},
		{"{{ '}}' }}", "}}"},
		{"{{ {'a': {'b': 1}}.a.b }}", 1},
		{"{{ install }}", "apt-get install kubelet=1.30.2-*"},
		{"{{ output.stdout }}", "{{ not a template }}"},
		{"{{ port > 1000 ? 'high' : 'low' }}", "high"},
		{"{{ 'a b' | quote }}", "'a b'"},
		{`{{ "it's" | quote }} {{ 'v1.30' | quote }}`, `'it'\''s' v1.30`},
		{"{{ None }}", nil},
		// Ansible's shape for dict2items and back (expr's toPairs gave [[k, v]]).
		{"{{ {'b': 2, 'a': 1} | dict2items }}", []any{map[string]any{"key": "a", "value": 1}, map[string]any{"key": "b", "value": 2}}},
		{"{{ ({'a': 1} | dict2items | items2dict).a }}", 1},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			got, err := Render(tt.src, testVars())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Render(%q) = %#v, want %#v", tt.src, got, tt.want)
			}
		})
	}
}

func TestRenderErrors(t *testing.T) {
	tests := []struct {
		src, want string
		undefined string // the variable an *UndefinedError names, if any
	}{
		{"{{ nope }}", `undefined variable "nope"`, "nope"},
		{"x {{ kcfg.chnged }} y", `undefined variable "kcfg.chnged"`, "kcfg.chnged"},
		{"{{ names[5] }}", `undefined variable "names[5]"`, "names[5]"},
		{"{{ loop_a }}", "nested more than 10 deep", ""},
		{"{{ port | frob }}", `unknown filter or function "frob"`, ""},
		{"{{ port ", `without its closing "}}"`, ""},
		{"{% if x %}", "Jinja statements", ""},
		{"{{ port + }}", "render", ""},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := Render(tt.src, testVars())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Render(%q) error = %v, want one containing %q", tt.src, err, tt.want)
			}
			var u *UndefinedError
			if tt.undefined != "" && (!errors.As(err, &u) || u.Name != tt.undefined) {
				t.Errorf("error %v is not an UndefinedError naming %q", err, tt.undefined)
			}
		})
	}
}

func TestRenderStringAndValue(t *testing.T) {
	s, err := RenderString("{{ port }}", testVars())
	if err != nil || s != "6443" {
		t.Errorf("RenderString = %q, %v", s, err)
	}
	v, err := RenderValue(map[string]any{"dest": "/tmp/{{ inventory_hostname }}", "list": []any{"{{ port }}", 3}}, testVars())
	want := map[string]any{"dest": "/tmp/controller-1", "list": []any{6443, 3}}
	if err != nil || !reflect.DeepEqual(v, want) {
		t.Errorf("RenderValue = %#v, %v", v, err)
	}
}

func TestCond(t *testing.T) {
	tests := []struct {
		cond string
		want bool
	}{
		{"kcfg.changed", true},
		{"result.rc != 0", true},
		{"result.rc != 0 and kcfg.changed", true},
		{"inventory_hostname == 'controller-1'", true},
		{"missing is defined", false},
		{"missing is not defined", true},
		{"kcfg.changed is defined", true},
		{"kcfg.nothing.deeper is undefined", true},
		{"not missing is defined", true},
		{"result is failed", true},
		{"result is succeeded", false},
		{"kcfg is changed", true},
		{"empty is none", true},
		{"'a' in names", true},
		{"result.stdout | trim == 'Kubernetes ' + to_version", true},
		{"names | length > 1", true},
		{"flag | bool", true},
		{"True and not False", true},
		{"{{ kcfg.changed }}", true},
		{"false", false},
		{"flag", true},
		{"empty", false},
		{"port", true},
	}
	for _, tt := range tests {
		t.Run(tt.cond, func(t *testing.T) {
			got, err := Cond(tt.cond, testVars())
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Cond(%q) = %v, want %v", tt.cond, got, tt.want)
			}
		})
	}
}

func TestCondErrors(t *testing.T) {
	tests := []struct{ cond, want string }{
		{"missing", `undefined variable "missing"`},
		{"result.rc == ", "condition"},
		{"to_version", `gave the string "v1.30.2", not a boolean`},
		{"x is frobbed", `unknown test "frobbed"`},
		{"", "empty expression"},
	}
	for _, tt := range tests {
		t.Run(tt.cond, func(t *testing.T) {
			_, err := Cond(tt.cond, testVars())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Cond(%q) error = %v, want one containing %q", tt.cond, err, tt.want)
			}
		})
	}
}

func TestCondDoesNotTouchStrings(t *testing.T) {
	vars := map[string]any{"s": "a | b is defined"}
	got, err := Cond("s == 'a | b is defined'", vars)
	if err != nil || !got {
		t.Errorf("a filter-like string literal was rewritten: %v, %v", got, err)
	}
}

func BenchmarkCondCached(b *testing.B) {
	vars := testVars()
	const cond = "result.rc != 0 and kcfg.changed is defined and inventory_hostname == 'controller-1'"
	if _, err := Cond(cond, vars); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Cond(cond, vars); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderCached(b *testing.B) {
	vars := testVars()
	const tmpl = "kubeadm upgrade apply {{ to_version }} --yes on {{ inventory_hostname }}"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(tmpl, vars); err != nil {
			b.Fatal(err)
		}
	}
}
