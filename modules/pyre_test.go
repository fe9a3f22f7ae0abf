package modules

import (
	"strings"
	"testing"
)

// TestPythonSub checks Python's re.sub (MULTILINE, as replace uses it) on patterns and templates
// where Go's RE2 or a naive expansion would differ; the wants are Python 3.11's answers.
func TestPythonSub(t *testing.T) {
	tests := []struct{ pattern, template, in, want string }{
		{`(\w+)=(\d+)`, `\2=\1`, "a=1 b=22", "1=a 22=b"},
		{`(?P<k>\w+):`, `\g<k> -> \g<0>`, "x: y:", "x -> x: y -> y:"},
		{`a`, `\n\t|\\|\-|\101`, "a", "\n\t|\\|\\-|A"},
		{`(a)|(b)`, `[\2]`, "ab", "[][b]"},
		{`x*`, `-`, "abxd", "-a-b--d-"},
		{`^`, `# `, "a\nb\n", "# a\n# b\n# "},
		{`(?<=k=)\d+`, `9`, "k=1 j=2", "k=9 j=2"},
		{`foo\Z`, `bar`, "foo\nfoo", "foo\nbar"},
		{`[\]a]`, `X`, "a]b", "XXb"},
		{`(?P<n>a)(?P=n)`, `X`, "aab", "Xb"},
		{`(\d)\1`, `D`, "1123", "D23"},
	}
	for _, tt := range tests {
		re, err := pyCompile(tt.pattern, true, false)
		if err != nil {
			t.Errorf("%s: %v", tt.pattern, err)
			continue
		}
		got, _, err := re.sub(tt.in, tt.template)
		if err != nil || got != tt.want {
			t.Errorf("re.sub(%q, %q, %q) = %q, %v; want %q", tt.pattern, tt.template, tt.in, got, err, tt.want)
		}
	}
}

func TestPythonTemplateErrors(t *testing.T) {
	re, _ := pyCompile(`(a)`, false, false)
	for tmpl, want := range map[string]string{`\q`: `bad escape \q`, `\g<nope>`: `unknown group name "nope"`, `\5`: "invalid group reference 5", `\g`: `missing group name`} {
		if _, _, err := re.sub("a", tmpl); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("template %q: err %v, want %q", tmpl, err, want)
		}
	}
	if _, err := pyCompile(`(unclosed`, false, false); err == nil || !strings.Contains(err.Error(), `regular expression "(unclosed"`) {
		t.Errorf("bad pattern: %v", err)
	}
}

// FuzzPythonRegexp feeds user patterns and templates to the translation and the expansion: an
// error is fine, a panic is not.
func FuzzPythonRegexp(f *testing.F) {
	f.Add(`(?P<k>\w+)=(.*)$`, `\g<k>: \2\n`, "a=1\nb=2\n")
	f.Add(`[\]\Z]\Z`, `\0\101\g<0>`, "x]")
	f.Fuzz(func(t *testing.T, pattern, template, in string) {
		re, err := pyCompile(pattern, true, false)
		if err != nil {
			return
		}
		re.sub(in, template)
	})
}
