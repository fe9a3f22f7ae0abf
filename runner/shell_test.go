package runner

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestSplitWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{`kubeadm upgrade node`, []string{"kubeadm", "upgrade", "node"}, false},
		{`echo 'a b' "c \"d\" \$x" e\ f`, []string{"echo", "a b", `c "d" $x`, "e f"}, false},
		{`  spaced   out  `, []string{"spaced", "out"}, false},
		{`empty '' ""`, []string{"empty", "", ""}, false},
		{`a"b"'c'd`, []string{"abcd"}, false},
		{`"unterminated`, nil, true},
		{`'unterminated`, nil, true},
	}
	for _, c := range cases {
		got, err := splitWords(c.in)
		if (err != nil) != c.err || !slices.Equal(got, c.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q (error %v)", c.in, got, err, c.want, c.err)
		}
	}
}

// TestQuoteRoundTrip runs quoted words through a real shell: what comes out must be exactly
// what went in.
func TestQuoteRoundTrip(t *testing.T) {
	words := []string{"plain", "", "it's", `"double"`, "$HOME `id` $(id)", "new\nline", `back\slash`, "*", "a'b'c", "-n"}
	for _, w := range words {
		out, err := exec.Command("/bin/sh", "-c", "printf %s "+quote(w)).Output()
		if err != nil || string(out) != w {
			t.Errorf("quote(%q) through sh gave %q, %v", w, out, err)
		}
	}
}

func TestWrap(t *testing.T) {
	cases := []struct {
		name   string
		env    map[string]string
		become bool
		user   string
		want   string
	}{
		{"bare", nil, false, "", "echo hi"},
		{"become defaults to root", nil, true, "", "exec sudo -n -u root -- sh -c " + quote(becomeGuard) + " sh 'echo hi'"},
		{"env is sorted and quoted", map[string]string{"B": "x y", "A": "1"}, false, "", `exec env A=1 'B=x y' sh -c 'echo hi'`},
		{"env inside sudo", map[string]string{"A": "it's"}, true, "kube", "exec sudo -n -u kube -- sh -c " + quote(becomeGuard) + " sh " + `'exec env '\''A=it'\''\'\'''\''s'\'' sh -c '\''echo hi'\'''`},
	}
	for _, c := range cases {
		if got := wrap("echo hi", c.env, c.become, c.user); got != c.want {
			t.Errorf("%s: wrap = %s\nwant %s", c.name, got, c.want)
		}
	}
}

// The fence's script stays one plain '...' word, so that a fenced command line is still
// `exec WORD...`, which sshconn runs without a shell of its own.
func TestFenceCommandIsExecWords(t *testing.T) {
	if strings.Contains(fenceScript, "'") {
		t.Fatal("fenceScript holds a single quote")
	}
	f := &Fence{Key: "k", Generation: 3, Owner: "host:1:x"}
	got := f.command("exec kubeadm upgrade node", "kubeadm upgrade node")
	want := "exec sh -c '" + fenceScript + "' kupgrade-fence /var/lib/kupgrade 0 k 3 host:1:x 'kubeadm upgrade node' sh -c 'exec kubeadm upgrade node'"
	if got != want {
		t.Errorf("fence command\n%s\nwant\n%s", got, want)
	}
}
