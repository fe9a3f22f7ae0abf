package jinja

import (
	"encoding/json"
	"math"
	"os/exec"
	"strings"
	"testing"
)

// TestDisplayJSONMatchesPython: values are written as Python's json.dumps writes them (Ansible's
// callbacks), compared with python3 itself when it is installed.
func TestDisplayJSONMatchesPython(t *testing.T) {
	values := []any{
		nil, true, 3, 2.0, 1e20, 0.1, "a\"b\\c\n\t\x01é", []any{},
		map[string]any{}, []any{1, []any{"x", map[string]any{"b": 1, "a": []any{nil}}}},
		map[string]any{"z": 1.5, "a": map[string]any{"k": "v"}, "m": []any{true, false}},
	}
	want := map[int]string{3: "2.0", 4: "1e+20", 9: "[\n    1,\n    [\n        \"x\",\n        {\n            \"a\": [\n                null\n            ],\n            \"b\": 1\n        }\n    ]\n]"}
	for i, w := range want {
		if got := DisplayJSON(values[i], 4); got != w {
			t.Errorf("DisplayJSON(%v) = %q, want %q", values[i], got, w)
		}
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is missing: compared with the recorded answers only")
	}
	in, _ := json.Marshal(values)
	script := `import json,sys
for v in json.loads(sys.argv[1]):
    for i in (None, 4): print(json.dumps(json.dumps(v, indent=i, sort_keys=True, ensure_ascii=False)))`
	out, err := exec.Command(py, "-c", script, string(in)).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i, v := range values {
		for j, indent := range []int{0, 4} {
			var p string
			if err := json.Unmarshal([]byte(lines[2*i+j]), &p); err != nil {
				t.Fatal(err)
			}
			if got := DisplayJSON(v, indent); got != p && !floatSpelling(v) {
				t.Errorf("indent %d: DisplayJSON(%#v) = %q, Python %q", indent, v, got, p)
			}
		}
	}
}

// floatSpelling: Go's JSON writes 2.0 as 2, so Python reads an int; the recorded answers cover it.
func floatSpelling(v any) bool {
	f, ok := v.(float64)
	return ok && f == math.Trunc(f)
}
