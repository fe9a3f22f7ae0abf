package runner

import (
	"strings"
	"testing"
	"time"
)

// The fence's script stays one plain '...' word, so that a fenced command line is still
// `exec WORD...`, which sshconn runs without a shell of its own.
func TestFenceCommandIsExecWords(t *testing.T) {
	if strings.Contains(fenceScript, "'") {
		t.Fatal("fenceScript holds a single quote")
	}
	f := &Fence{Cluster: "lab", Key: "k", Generation: 3, Owner: "host:1:x", Claim: 1500 * time.Millisecond}
	got := f.Command("exec kubeadm upgrade node", "upgrade (sha256:0a1b)")
	want := "exec sh -c '" + fenceScript + "' kupgrade-fence /var/lib/kupgrade 0 lab k 3 host:1:x 2 'upgrade (sha256:0a1b)' sh -c 'exec kubeadm upgrade node'"
	if got != want {
		t.Errorf("fence command\n%s\nwant\n%s", got, want)
	}
}
