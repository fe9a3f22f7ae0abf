package upgrade

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sandbox runs the restore's scripts with bash in a folder of their own: every absolute path
// they name is moved under root, and a fake etcdutl on PATH writes what it was given into the
// data dir it was asked for (and counts its runs).
type sandbox struct {
	t    *testing.T
	root string
	path string
}

func newSandbox(t *testing.T) *sandbox {
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	os.MkdirAll(bin, 0o755)
	fake := `#!/bin/bash
echo run >> "$(dirname "$0")/runs"
a="$*"
while [ $# -gt 0 ]; do [ "$1" = --data-dir ] && d=$2; shift; done
mkdir -p "$d/member" && echo "$a" > "$d/member/restored-db"
`
	if err := os.WriteFile(filepath.Join(bin, "etcdutl"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "ctr"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil { // no containerd here
		t.Fatal(err)
	}
	return &sandbox{t: t, root: root, path: bin + ":" + os.Getenv("PATH")}
}

// rooted is script with its absolute paths under the sandbox's root.
func (s *sandbox) rooted(script string) string {
	for _, p := range []string{"/etc/kubernetes", "/var/lib/kupgrade"} {
		script = strings.ReplaceAll(script, p, filepath.Join(s.root, p))
	}
	return script
}

func (s *sandbox) run(script string) (string, error) {
	cmd := exec.Command("bash", "-c", s.rooted(script))
	cmd.Env = append(os.Environ(), "PATH="+s.path)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (s *sandbox) write(rel, content string) {
	p := filepath.Join(s.root, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

func (s *sandbox) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(s.root, rel))
	return err == nil
}

// TestRestoreScriptSwap: the restore keeps the old data dir aside under its name, marks the new
// one, does nothing a second time, finishes a swap cut between its two renames, and refuses a
// snapshot whose sha256 differs or an aside name already taken by another data dir.
func TestRestoreScriptSwap(t *testing.T) {
	s := newSandbox(t)
	const uuid = "u-1"
	sum := sha256.Sum256([]byte("snapshot"))
	sha := hex.EncodeToString(sum[:])
	s.write("var/lib/kupgrade/etcd-restore-u-1.db", "snapshot")
	s.write("data/member/old-db", "old")
	m := etcdMember{name: "controller-0", peerURL: "https://10.0.0.1:2380", dataDir: filepath.Join(s.root, "data"),
		initialCluster: "controller-0=https://10.0.0.1:2380", tools: []string{"etcdutl"}}
	script := restoreScript(uuid, sha, m)
	if out, err := s.run(script); err != nil || !s.exists("data/member/restored-db") || !s.exists("data.kupgrade-before-u-1/member/old-db") {
		t.Fatalf("restore: %v\n%s; want the new data dir in place and the old one kept aside", err, out)
	}
	args, _ := os.ReadFile(filepath.Join(s.root, "data/member/restored-db"))
	if !strings.Contains(string(args), "--name controller-0 --initial-cluster controller-0=https://10.0.0.1:2380 --initial-cluster-token etcd-cluster --initial-advertise-peer-urls https://10.0.0.1:2380") {
		t.Errorf("etcdutl got %q", args)
	}
	if out, err := s.run(script); err != nil || !strings.Contains(out, "already restored") {
		t.Errorf("second run: %v\n%s; want it to find the restore done", err, out)
	}
	if runs, _ := os.ReadFile(filepath.Join(s.root, "bin/runs")); strings.Count(string(runs), "run") != 1 {
		t.Errorf("etcdutl ran %d times, want once", strings.Count(string(runs), "run"))
	}
	os.RemoveAll(filepath.Join(s.root, "data")) // a kill between the two renames
	if out, err := s.run(script); err != nil || !s.exists("data/kupgrade-restored") || !s.exists("data.kupgrade-before-u-1/member/old-db") {
		t.Errorf("after a cut swap: %v\n%s; want the restore finished and the old data dir still aside", err, out)
	}
	s.write("data/kupgrade-restored", "another restore")
	if out, err := s.run(script); err == nil || !strings.Contains(out, "never deletes a data dir") {
		t.Errorf("with the aside name taken: %v\n%s; want a refusal", err, out)
	}
	if out, err := s.run(restoreScript(uuid, strings.Repeat("0", 64), m)); err == nil || !strings.Contains(out, "has sha256 "+sha) {
		t.Errorf("with another sha256: %v\n%s; want the copy's checksum named", err, out)
	}
}

// TestStopStartScripts: the stop moves every control-plane manifest aside (refusing when one is
// in both places), the start puts them back and removes the empty aside folder.
func TestStopStartScripts(t *testing.T) {
	s := newSandbox(t)
	for _, c := range controlPlane {
		s.write("etc/kubernetes/manifests/"+c+".yaml", "image: registry.k8s.io/"+c+":v1.29.4\n")
	}
	if out, err := s.run(stopScript("u-1", true, false)); err != nil || s.exists("etc/kubernetes/manifests/etcd.yaml") || !s.exists("etc/kubernetes/kupgrade-etcd-restore-u-1/kube-apiserver.yaml") {
		t.Fatalf("stop: %v\n%s", err, out)
	}
	out, err := s.run(asideScript("u-1"))
	if err != nil || !strings.Contains(out, restoreMark+"aside kube-scheduler v1.29.4") {
		t.Errorf("aside: %v\n%s", err, out)
	}
	s.write("etc/kubernetes/manifests/etcd.yaml", "image: registry.k8s.io/etcd:3.5.12-0\n")
	if out, err := s.run(stopScript("u-1", true, false)); err == nil || !strings.Contains(out, "both") {
		t.Errorf("stop with etcd.yaml in both places: %v\n%s; want a refusal", err, out)
	}
	os.Remove(filepath.Join(s.root, "etc/kubernetes/manifests/etcd.yaml"))
	if out, err := s.run(startScript("u-1", true, false)); err != nil || !s.exists("etc/kubernetes/manifests/etcd.yaml") || s.exists("etc/kubernetes/kupgrade-etcd-restore-u-1") {
		t.Fatalf("start: %v\n%s", err, out)
	}
}

// kubeadmEtcd is the part of a kubeadm etcd.yaml the discovery reads.
const kubeadmEtcd = `apiVersion: v1
kind: Pod
spec:
  containers:
  - command:
    - etcd
    - --advertise-client-urls=https://10.0.0.2:2379
    - --data-dir=/var/lib/etcd
    - --initial-advertise-peer-urls=https://10.0.0.2:2380
    - --initial-cluster=controller-0=https://10.0.0.1:2380,controller-1=https://10.0.0.2:2380
    - --initial-cluster-state=existing
    - --name=controller-1
    image: registry.k8s.io/etcd:3.5.12-0
`

// TestDiscoverStackedMember: the discovery reads a kubeadm etcd.yaml, in place or aside, into
// the member's name, peer URL, data dir and image.
func TestDiscoverStackedMember(t *testing.T) {
	s := newSandbox(t)
	for _, where := range []string{"etc/kubernetes/manifests/etcd.yaml", "etc/kubernetes/kupgrade-etcd-restore-u-1/etcd.yaml"} {
		os.RemoveAll(filepath.Join(s.root, "etc"))
		s.write(where, kubeadmEtcd)
		out, err := s.run(discoverScript("u-1", true))
		if err != nil {
			t.Fatalf("discover: %v\n%s", err, out)
		}
		m := etcdMember{stacked: true}
		m.read(out)
		if m.name != "controller-1" || m.peerURL != "https://10.0.0.2:2380" || m.dataDir != "/var/lib/etcd" || m.image != "registry.k8s.io/etcd:3.5.12-0" ||
			!slices.Contains(m.tools, "etcdutl") {
			t.Errorf("etcd.yaml at %s read as %+v from:\n%s", where, m, out)
		}
	}
}
