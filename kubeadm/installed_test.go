package kubeadm_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kupgrade/kupgrade/kubeadm"
)

// fakeBin writes an executable script named name into dir.
func fakeBin(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// The probe reports the kubelet's and kubeadm's versions in its one command, reading what the
// lab's binaries print ("Kubernetes v1.30.2"; `kubeadm version -o short` prints "v1.31.0").
func TestProbeReportsInstalledVersions(t *testing.T) {
	bin := t.TempDir()
	fakeBin(t, bin, "kubelet", `[ "$1" = --version ] && echo "Kubernetes v1.30.2"`+"\n")
	fakeBin(t, bin, "kubeadm", `case "$*" in *short*) echo v1.31.0 ;; *) echo "kubeadm version: &version.Info{}" ;; esac`+"\n")
	s := probeWithPath(t, t.TempDir(), bin+":"+os.Getenv("PATH"))
	in := s.Installed
	if in.Kubelet != "v1.30.2" || in.Kubeadm != "v1.31.0" || in.KubeletErr() != nil {
		t.Errorf("installed = %+v, want kubelet v1.30.2 and kubeadm v1.31.0", in)
	}
}

// A host without a kubelet or kubeadm still gives a snapshot; the kubelet's absence is an error
// that says what the host printed.
func TestProbeWithoutBinaries(t *testing.T) {
	s := probeWithPath(t, t.TempDir(), t.TempDir())
	in := s.Installed
	if in.Kubelet != "" || in.Kubeadm != "" || !in.Read {
		t.Errorf("installed = %+v, want read and empty", in)
	}
	if err := in.KubeletErr(); err == nil || !strings.Contains(err.Error(), "is the kubelet installed?") {
		t.Errorf("KubeletErr = %v", err)
	}
}

// Without Versions the probe runs neither binary: the kubelet_config module's report is unchanged.
func TestProbeWithoutVersions(t *testing.T) {
	script, _ := kubeadm.Prober{Root: "/x"}.Command()
	if strings.Contains(script, "kubelet --version") || strings.Contains(script, "kubeadm version") {
		t.Errorf("script runs the binaries without Versions:\n%s", script)
	}
}

// While another kupgrade command holds the host's fence (it may be running kubeadm), the probe
// starts no kubeadm: one kubeadm runs on a host at a time. The kubelet is still read.
func TestProbeStartsNoKubeadmUnderABusyFence(t *testing.T) {
	bin, root := t.TempDir(), t.TempDir()
	ran := filepath.Join(bin, "ran")
	fakeBin(t, bin, "kubelet", `echo "Kubernetes v1.30.2"`+"\n")
	fakeBin(t, bin, "kubeadm", "touch "+ran+"; echo v1.31.0\n")
	fence := filepath.Join(root, "var/lib/kupgrade")
	if err := os.MkdirAll(fence, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fence, "fence.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(fence, "fence.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	s := probeWithPath(t, root, bin+":"+os.Getenv("PATH"))
	if s.Fence == nil || !s.Fence.Busy {
		t.Fatalf("fence = %+v, want busy", s.Fence)
	}
	if _, err := os.Stat(ran); err == nil || s.Installed.Kubeadm != "" || s.Installed.Kubelet != "v1.30.2" {
		t.Errorf("kubeadm ran (%v) or installed = %+v; want only the kubelet read", err == nil, s.Installed)
	}
}

func probeWithPath(t *testing.T, root, path string) kubeadm.Snapshot {
	t.Helper()
	p := kubeadm.Prober{Root: root, Versions: true}
	exec := func(ctx context.Context, script string, env map[string]string) (int, string, string, error) {
		if env == nil {
			env = map[string]string{}
		}
		env["PATH"] = path
		return localExec(ctx, script, env)
	}
	s, err := p.Probe(t.Context(), exec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A fenced command that takes the lock right after the probe's first look at it is never
// observed half-way: kubeadm is read under the lock (flock -n -E), so it runs before the step
// starts or not at all. Here the step starts as soon as the probe's first flock call returns:
// a probe that checked the lock and then ran kubeadm would run it beside the step.
func TestProbeReadsKubeadmUnderTheFence(t *testing.T) {
	realFlock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("flock (util-linux) is not installed")
	}
	bin, root := t.TempDir(), t.TempDir()
	fence := filepath.Join(root, "var/lib/kupgrade")
	lock, held, release := filepath.Join(fence, "fence.lock"), filepath.Join(bin, "held"), filepath.Join(bin, "release")
	fakeBin(t, bin, "kubelet", `echo "Kubernetes v1.30.2"`+"\n")
	fakeBin(t, bin, "kubeadm", `[ -e `+held+` ] && touch `+bin+`/during; echo v1.31.0`+"\n")
	fakeBin(t, bin, "flock", `[ -e `+bin+`/started ] && exec `+realFlock+` "$@"
touch `+bin+`/started
`+realFlock+` "$@"; rc=$?
`+realFlock+` `+lock+` sh -c 'touch `+held+`; n=0; while [ ! -e `+release+` ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n+1)); done' >/dev/null 2>&1 </dev/null &
while [ ! -e `+held+` ]; do sleep 0.05; done
exit $rc
`)
	if err := os.MkdirAll(fence, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.WriteFile(release, nil, 0o644) })
	s := probeWithPath(t, root, bin+":"+os.Getenv("PATH"))
	if _, err := os.Stat(filepath.Join(bin, "during")); err == nil {
		t.Fatal("kubeadm ran while a fenced command held the lock")
	}
	if s.Installed.Kubeadm != "v1.31.0" {
		t.Errorf("installed = %+v; want kubeadm v1.31.0, read before the step started", s.Installed)
	}
}

// With the fence free the probe reads kubeadm under it, creating the lock file where the host
// has none yet, and reports no fence for a host that had none.
func TestProbeReadsKubeadmWithTheFenceFree(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock (util-linux) is not installed")
	}
	bin, root := t.TempDir(), t.TempDir()
	fakeBin(t, bin, "kubelet", `echo "Kubernetes v1.30.2"`+"\n")
	fakeBin(t, bin, "kubeadm", "echo v1.31.0\n")
	s := probeWithPath(t, root, bin+":"+os.Getenv("PATH"))
	if s.Fence != nil || s.Installed.Kubeadm != "v1.31.0" {
		t.Errorf("fence = %+v, installed = %+v; want no fence and kubeadm v1.31.0", s.Fence, s.Installed)
	}
	if _, err := os.Stat(filepath.Join(root, "var/lib/kupgrade/fence.lock")); err != nil {
		t.Errorf("the probe took no lock: %v", err)
	}
}
