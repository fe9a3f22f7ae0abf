package runner

import (
	"strings"
	"testing"
	"time"
)

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
	f := &Fence{Cluster: "lab", Key: "k", Generation: 3, Owner: "host:1:x", Claim: 1500 * time.Millisecond}
	got := f.command("exec kubeadm upgrade node", "upgrade (sha256:0a1b)")
	want := "exec sh -c '" + fenceScript + "' kupgrade-fence /var/lib/kupgrade 0 lab k 3 host:1:x 2 'upgrade (sha256:0a1b)' sh -c 'exec kubeadm upgrade node'"
	if got != want {
		t.Errorf("fence command\n%s\nwant\n%s", got, want)
	}
}
