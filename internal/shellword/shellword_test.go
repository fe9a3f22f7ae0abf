package shellword

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":              "''",
		"plain":         "plain",
		"-n":            "-n",
		"A=1":           "A=1",
		"user@h:22/x,y": "user@h:22/x,y",
		"a b":           "'a b'",
		"it's":          `'it'\''s'`,
		"*":             "'*'",
		"~":             "'~'",
		"été":           "'été'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := Join([]string{"env", "B=x y", "sh"}); got != "env 'B=x y' sh" {
		t.Errorf("Join = %s", got)
	}
}

// TestQuoteThroughShell runs quoted words through a real shell: what comes out must be exactly
// what went in.
func TestQuoteThroughShell(t *testing.T) {
	words := []string{"plain", "", "it's", `"double"`, "$HOME `id` $(id)", "new\nline", `back\slash`, "*", "a'b'c", "-n", "''", "\t"}
	out, err := exec.Command("/bin/sh", "-c", `printf '%s\0' `+Join(words)).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); !slices.Equal(got, words) {
		t.Errorf("sh read %q back as %q", words, got)
	}
}

func TestSplit(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  string
	}{
		// what the command module gets
		{`kubeadm upgrade node`, []string{"kubeadm", "upgrade", "node"}, ""},
		{`echo 'a b' "c \"d\" \$x" e\ f`, []string{"echo", "a b", `c "d" $x`, "e f"}, ""},
		{"  spaced \t out\n ", []string{"spaced", "out"}, ""},
		{`empty '' ""`, []string{"empty", "", ""}, ""},
		{`a"b"'c'd`, []string{"abcd"}, ""},
		{`$HOME * ~ a;b`, []string{"$HOME", "*", "~", "a;b"}, ""},
		{"", nil, ""},
		// what ansible_ssh_common_args holds
		{`-o ProxyJump=a@b:22 -J c`, []string{"-o", "ProxyJump=a@b:22", "-J", "c"}, ""},
		{`-o "ProxyJump ops@j1:2200"`, []string{"-o", "ProxyJump ops@j1:2200"}, ""},
		{`-o ProxyCommand="ssh -W %h:%p bastion"`, []string{"-o", "ProxyCommand=ssh -W %h:%p bastion"}, ""},
		{`'it''s' "a\\b"`, []string{"its", `a\b`}, ""},
		// backslashes as sh reads them
		{`"a\xb" "\'"`, []string{`a\xb`, `\'`}, ""},
		{"a\\\nb \\\n c", []string{"ab", "c"}, ""},
		{"\"a\\\nb\"", []string{"ab"}, ""},
		{`a\`, []string{`a\`}, ""},
		{`\`, []string{`\`}, ""},
		{`'\'`, []string{`\`}, ""},
		// mistakes
		{`"unterminated`, nil, "unclosed double quote"},
		{`'unterminated`, nil, "unclosed single quote"},
		{`"a\"`, nil, "unclosed double quote"},
	}
	for _, c := range cases {
		got, err := Split(c.in)
		if msg := errText(err); msg != c.err || !slices.Equal(got, c.want) {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", c.in, got, msg, c.want, c.err)
		}
	}
}

// TestSplitAgreesWithSh: for lines without expansions or operators, Split finds the words sh
// finds.
func TestSplitAgreesWithSh(t *testing.T) {
	lines := []string{
		`a b`, "a\tb", `'a b' "c d"`, `"a\\b\$c\"d\x"`, `a\ b\'c\"d`, "a\\\nb", "\"a\\\nb\"",
		`a\`, `x \`, `""`, `''""''`, `"'"'"'`, `-o ProxyCommand="ssh -W %h:%p bastion"`, `a\\`,
		`'it'\''s'`, `%p:@=+,./-_`,
	}
	for _, line := range lines {
		got, err := Split(line)
		if err != nil {
			t.Errorf("Split(%q): %v", line, err)
			continue
		}
		out, err := exec.Command("/bin/sh", "-c", `f() { printf '%s\0' "$@"; }; f `+line).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		var want []string
		if len(out) > 0 {
			want = strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		}
		if !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, sh says %q", line, got, want)
		}
	}
}

func TestSplitPlain(t *testing.T) {
	words := map[string][]string{
		"/bin/true":                          {"/bin/true"},
		" kubeadm   upgrade node":            {"kubeadm", "upgrade", "node"},
		`sudo -n -- sh -c 'echo '\''hi'\'''`: {"sudo", "-n", "--", "sh", "-c", "echo 'hi'"},
		"env A=1 'B=x y'":                    {"env", "A=1", "B=x y"},
		"printf %s 'two\nlines'":             {"printf", "%s", "two\nlines"},
		`a\ b c\'d \"`:                       {"a b", "c'd", `"`},
		"a ''":                               {"a", ""},
		"":                                   nil,
	}
	for line, want := range words {
		got, err := SplitPlain(line)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("SplitPlain(%q) = %q, %v; want %q", line, got, err, want)
		}
	}
	for _, line := range []string{
		"a $HOME", `a "b"`, "a 'b", "a > f", "a\nb", "a b*", "a ~", "a #c", "a|b", "a `b`", "\ta",
		`a \`, "a\\\nb", "a;b", "a&", "é",
	} {
		if got, err := SplitPlain(line); err == nil {
			t.Errorf("SplitPlain(%q) = %q, want an error", line, got)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
