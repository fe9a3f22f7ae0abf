package upgrade

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestEtcdRestorePlaybook plays the shipped etcd-restore playbook's restore phase with the
// runner on this machine (a sudo on PATH that runs the command as the test's user): the
// snapshot on kupgrade's side is copied to the member's folder, the member's own script runs
// from the per-host variable, and the data dir is swapped.
func TestEtcdRestorePlaybook(t *testing.T) {
	s := newSandbox(t)
	sudo := "#!/bin/sh\n[ \"$1\" = -n ] && [ \"$4\" = -- ] || exit 99\nshift 4\nexec \"$@\"\n"
	if err := os.WriteFile(filepath.Join(s.root, "bin", "sudo"), []byte(sudo), 0o755); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "u-1-hop0.db")
	os.WriteFile(local, []byte("snapshot"), 0o600)
	sum := sha256.Sum256([]byte("snapshot"))
	s.write("data/member/old-db", "old")
	m := etcdMember{name: "controller-0", peerURL: "https://10.0.0.1:2380", dataDir: filepath.Join(s.root, "data"),
		initialCluster: "controller-0=https://10.0.0.1:2380", tools: []string{"etcdutl"}}
	invPath := filepath.Join(s.root, "inventory.yml")
	os.WriteFile(invPath, []byte("all:\n  hosts:\n    controller-0:\n"), 0o644)
	inv, err := inventory.Load(invPath)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := playbooks.Embedded("etcd-restore")
	if err != nil {
		t.Fatal(err)
	}
	r := runner.New(&runnertest.LocalDialer{Env: []string{"PATH=" + s.path}}, runner.Options{})
	t.Cleanup(func() { r.Close() })
	recap, err := r.Play(t.Context(), pb, inv, runner.PlayOptions{Tags: []string{"restore"}, ExtraVars: map[string]any{
		playbooks.VarEtcdRestoreScript: map[string]string{"controller-0": s.rooted(restoreScript("u-1", hex.EncodeToString(sum[:]), m))},
		playbooks.VarEtcdRestoreFile:   local,
		playbooks.VarEtcdRestoreDest:   s.rooted(snapshotOnMember("u-1")),
	}})
	if err != nil {
		t.Fatalf("play: %v", err)
	}
	out, _ := recap.Registered["controller-0"][playbooks.VarEtcdRestore].(map[string]any)["stdout"].(string)
	if !strings.Contains(out, "restored "+m.dataDir) || !s.exists("data/kupgrade-restored") || !s.exists("data.kupgrade-before-u-1/member/old-db") {
		t.Errorf("the restore phase printed %q; want the data dir restored and the old one kept aside", out)
	}
}
