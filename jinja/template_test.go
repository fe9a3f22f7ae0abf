package jinja

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
		"endpoint":           "https://{{ api_host }}:{{ port }}",
		"api_host":           "{{ inventory_hostname }}.lab",
		"loop_a":             "{{ loop_b }}",
		"loop_b":             "{{ loop_a }}",
		"output":             map[string]any{"stdout": "{{ not a template }}"},
		DataKey:              map[string]bool{"output": true},
	}
}

func TestRender(t *testing.T) {
	tests := []struct {
		src  string
		want any
	}{
		{"plain text", "plain text"},
		// One variable holding a number, boolean or None is handed over as it is; any other
		// expression is text unless it reads as a list, dict or boolean (Ansible 2.14).
		{"{{ port }}", 6443},
		{"{{ ratio }}", 0.5},
		{"{{ kcfg.changed }}", true},
		{"{{ port + 1 }}", "6444"},
		{"{{ names }}", []any{"a", "b"}},
		{"port={{ port }} host={{ inventory_hostname }}", "port=6443 host=controller-1"},
		{"{{ kcfg.manifests['kube-apiserver'] }}", "v1.30.2"},
		{"{{ to_version[1:] }}", "1.30.2"},
		{"{{ missing | default('d') }}", "d"},
		{"{{ missing | d('d') }}", "d"},
		{"{{ kcfg.nothing.deeper | default(port) }}", "6443"},
		{"{{ empty | default('not for None') }}", ""},
		{"{{ '' | default('empty', true) }}", "empty"},
		{"{{ port | string }}", "6443"},
		{"{{ '42' | int + 1 }}", "43"},
		{"{{ to_version | upper }}", "V1.30.2"},
		{"{{ names | length }}", "2"},
		{"{{ names | join(',') }}", "a,b"},
		{"{{ flag | bool }}", true},
		{"{{ result.stdout | trim }}", "Kubernetes v1.30.2"},
		{"{{ missing | default('  x ') | trim | upper }}", "X"},
		{"{{ names }} are", "['a', 'b'] are"},
		{"{{ '}}' }}", "}}"},
		{"{{ {'a': {'b': 1}}.a.b }}", "1"},
		{"{{ install }}", "apt-get install kubelet=1.30.2-*"},
		{"{{ endpoint }}", "https://controller-1.lab:6443"},
		{"{{ output.stdout }}", "{{ not a template }}"},
		{"{{ 'high' if port > 1000 else 'low' }}", "high"},
		{"{{ 'a b' | quote }}", "'a b'"},
		{"{{ None }}", ""},
		{"x{{ None }}y", "xy"},
		// The silent bugs of the expr engine.
		{"{{ 7 // 2 }}", "3"},
		{"{{ 'v1' in to_version }}", true},
		{"{{ names | map('upper') | list }}", []any{"A", "B"}},
		{"{{ {'b': 2, 'a': 1} | dict2items }}", []any{map[string]any{"key": "b", "value": 2}, map[string]any{"key": "a", "value": 1}}},
		{"{{ ({'a': 1} | dict2items | items2dict).a }}", "1"},
		{"{{ x | ansible.builtin.default('fq') }}", "fq"},
		{"{% for n in names %}{{ n }}{% if not loop.last %}-{% endif %}{% endfor %}", "a-b"},
		{"{% set n = port // 1000 %}{{ n ~ 'k' }}", "6k"},
		{"[{{ port }}, 1]", []any{6443, 1}},
		{"{{ ['a', 'b'] | zip([1, 2]) | dict }}", map[string]any{"a": 1, "b": 2}},
		// x if c else y inside brackets, which gonja alone does not parse.
		{"{{ ('a' if port > 1 else 'b') | upper }}", "A"},
		{"{{ missing | default('x' if flag | bool else 'y') }}", "x"},
		{"{{ [1 if empty else 2, 'c' if kcfg.changed else ('d' if port else 'e'), 3] }}", []any{2, "c", 3}},
		{"{{ (missing.deep if missing is defined else 'safe') ~ '!' }}", "safe!"},
		{"{{ ('a' if False else 'b' if False else 'c') }}", "c"},
		{"{% set v = (port if port is number else 0) + 1 %}{{ v }}", "6444"},
		{"{{ ('if' if 'else' in names else 'x, y') }}", "x, y"},
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
		{"{{ nope }}", `'nope' is undefined`, "nope"},
		{"x {{ kcfg.chnged }} y", `'dict object' has no attribute 'chnged'`, "chnged"},
		{"{{ names[5] }}", `has no attribute '5'`, "5"},
		{"{{ nope == 1 }}", `'nope' is undefined`, "nope"},
		{"{{ nope | upper }}", `'nope' is undefined`, "nope"},
		{"{{ loop_a }}", "recursive loop detected in template: loop_a -> loop_b -> loop_a", ""},
		{"{{ port | frob }}", `filter 'frob' is not supported by kupgrade`, ""},
		{"{{ port | ansible.utils.ipmath }}", `filter 'ansible.utils.ipmath' is not supported by kupgrade`, ""},
		{"{{ port ", `template "{{ port "`, ""},
		{"{% if port %}", `Unable to parse controlStructure "if"`, ""},
		{"{{ port + }}", "template", ""},
		{"{{ nope | mandatory }}", "Mandatory variable 'nope' not defined.", ""},
		{"{{ 'x' * 100000000 }}", "too long", ""},
		{"{{ range(100000000) | list }}", "range too big", ""},
		{"{{ lookup('file', '/etc/hosts') }}", "lookup plugin 'file': lookups are not available here", ""},
		{"{{ ['a', 'b'] | zip([1, 2]) | dict | ansible.netcommon.ipmath }}", "filter 'ansible.netcommon.ipmath' is not supported by kupgrade", ""},
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
	s, err := RenderString("{{ names }}", testVars())
	if err != nil || s != "['a', 'b']" {
		t.Errorf("RenderString = %q, %v", s, err)
	}
	in := map[string]any{"dest": "/tmp/{{ inventory_hostname }}", "list": []any{"{{ port }}", 3},
		"mode": "{{ missing | default(omit) }}"}
	v, err := RenderValue(in, testVars())
	want := map[string]any{"dest": "/tmp/controller-1", "list": []any{6443, 3}}
	if err != nil || !reflect.DeepEqual(v, want) {
		t.Errorf("RenderValue = %#v, %v", v, err)
	}
	plain := map[string]any{"a": "b"}
	if v, _ := RenderValue(plain, testVars()); reflect.ValueOf(v).Pointer() != reflect.ValueOf(plain).Pointer() {
		t.Error("a value without templates was copied")
	}
}

// TestLazyVarsAnyOrder: a variable may use one defined after it, whatever the map order.
func TestLazyVarsAnyOrder(t *testing.T) {
	for range 20 {
		vars := map[string]any{"c": "{{ b }}-c", "b": "{{ a }}-b", "a": "a", "d": map[string]any{"x": "{{ c }}"}}
		got, err := Render("{{ d.x }}", vars)
		if err != nil || got != "a-b-c" {
			t.Fatalf("Render = %#v, %v", got, err)
		}
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
		{"missing.deeper is undefined", true},
		{"not missing is defined", true},
		{"result is failed", true},
		{"result is succeeded", false},
		{"kcfg is changed", true},
		{"empty is none", true},
		{"'a' in names", true},
		{"'Kubernetes' in result.stdout", true},
		{"'manifests' in kcfg", true},
		{"result.stdout | trim == 'Kubernetes ' ~ to_version", true},
		{"names | length > 1", true},
		{"to_version is version('v1.30.0', '>=')", true},
		{"to_version[1:] is version_compare('1.31', '<')", true},
		{"result.stdout is search('v1\\\\.30')", true},
		{"to_version is match('v1')", true},
		{"to_version[1:] is version('1.30.2', 'eq', strict=true)", true},
		{"to_version is not version('v1.31', '>=', version_type='loose')", true},
		{"'ABC' is search('b', ignorecase=true)", true},
		{"flag | bool", true},
		{"True and not False", true},
		{"{{ kcfg.changed }}", true},
		{"false", false},
		{"yes", true},
		{"flag", true},
		{"to_version", true},
		{"empty", false},
		{"port", true},
		{"port % 2 == 1", true},
		{"2 ** 3 == 8", true},
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
		{"missing", `'missing' is undefined`},
		{"missing == 1", `'missing' is undefined`},
		{"result.rc == ", "condition"},
		{"x is frobbed", `test 'frobbed' is not supported by kupgrade`},
		{"", "empty condition"},
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

// TestHostvarsRenderedPerHost: another host's variable is rendered with that host's
// variables when read, and an unrelated broken variable of that host does not matter.
func TestHostvarsRenderedPerHost(t *testing.T) {
	other := map[string]any{"ip": "10.0.0.2", "url": "https://{{ ip }}", "broken": "{{ nothing }}"}
	vars := map[string]any{"ip": "10.0.0.1", "hostvars": map[string]any{"h2": other}}
	got, err := Render("{{ hostvars['h2'].url }} {{ hostvars.h2.missing | default('-') }}", vars)
	if err != nil || got != "https://10.0.0.2 -" {
		t.Errorf("Render = %#v, %v", got, err)
	}
	delete(other, "broken") // reading every variable renders each
	if keys, err := Render("{{ hostvars.h2.keys() | list | sort }}", vars); err != nil || !reflect.DeepEqual(keys, []any{"ip", "url"}) {
		t.Errorf("hostvars.h2 keys = %#v, %v", keys, err)
	}
}
