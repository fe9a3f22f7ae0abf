//go:build integration

package lab

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

const target = "v1.30.2"

// sshRun runs cmd on the node over SSH and returns stdout and the exit status; err is set
// only when the command did not run to an exit status (connection lost).
func sshRun(t *testing.T, n *Node, cmd string) (string, int, error) {
	t.Helper()
	client, err := n.Dial(t.Context())
	if err != nil {
		t.Fatalf("dial %s: %v", n.Name, err)
	}
	defer client.Close()
	s, err := client.NewSession()
	if err != nil {
		t.Fatalf("session on %s: %v", n.Name, err)
	}
	var out, stderr bytes.Buffer
	s.Stdout, s.Stderr = &out, &stderr
	err = s.Run(cmd)
	var exit *ssh.ExitError
	if errors.As(err, &exit) {
		t.Logf("%s: %s: exit %d: %s", n.Name, cmd, exit.ExitStatus(), stderr.String())
		return out.String(), exit.ExitStatus(), nil
	}
	return out.String(), 0, err
}

func mustExec(t *testing.T, n *Node, cmd ...string) string {
	t.Helper()
	out, err := n.Exec(t.Context(), cmd...)
	if err != nil {
		t.Fatalf("%s: %v", n.Name, err)
	}
	return out
}

func imageTags(t *testing.T, n *Node) string {
	t.Helper()
	return mustExec(t, n, "sh", "-c", "grep -h 'image:' /etc/kubernetes/manifests/*.yaml")
}

func wantTags(t *testing.T, n *Node, version string) {
	t.Helper()
	if got := imageTags(t, n); strings.Count(got, ":"+version+"\n") != 3 {
		t.Fatalf("%s manifests:\n%s\nwant all three at %s", n.Name, got, version)
	}
}

// waitNoKubeadm waits until no kubeadm process is left on the node.
func waitNoKubeadm(t *testing.T, n *Node) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := n.Exec(t.Context(), "pgrep", "-f", "kubeadm upgrade"); err != nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: kubeadm still running: %s", n.Name, mustExec(t, n, "ps", "-eo", "pid,pgid,args"))
}

// startHanging starts `kubeadm upgrade node` over SSH with a hang fault armed after preflight
// and returns once kubeadm hangs.
func startHanging(t *testing.T, n *Node) (*ssh.Client, *ssh.Session) {
	t.Helper()
	if err := n.InjectFault(t.Context(), Fault{Phase: "preflight", Action: Hang, Once: true}); err != nil {
		t.Fatal(err)
	}
	client, err := n.Dial(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("sudo kubeadm upgrade node"); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		_, armed := n.Exec(t.Context(), "test", "-e", FaultFile)
		_, running := n.Exec(t.Context(), "pgrep", "-f", "kubeadm upgrade")
		if armed != nil && running == nil { // the one-shot fault fired and kubeadm is still there
			return client, s
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: kubeadm never hung", n.Name)
	return nil, nil
}
