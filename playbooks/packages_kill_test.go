package playbooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitFor waits until path exists.
func waitFor(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
	}
}

func readCalls(t *testing.T, f fakeApt) []string {
	t.Helper()
	b, _ := os.ReadFile(f.log)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// A SIGKILL of the whole session during apt-get install (kupgrade killed: the transport's
// wrapper kills the command's process group) does not leave the packages unheld: the install
// and the hold run in a session of their own and finish.
func TestPackageInstallHoldsAgainWhenTheSessionIsKilled(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid(1) on this machine")
	}
	f := newFakeApt(t, "1.31.1-1.1")
	if err := os.WriteFile(filepath.Join(f.dir, "block"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, _ := pkgInstallCmd(t, f, k8sSource, "kubeadm", "1.31.1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, filepath.Join(f.dir, "installing"))
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if err := os.Remove(filepath.Join(f.dir, "block")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, filepath.Join(f.state(), "install.rc"))
	calls := readCalls(t, f)
	if i := slices.Index(calls, "apt-mark hold kubeadm"); i < 0 || i < slices.IndexFunc(calls, func(c string) bool { return strings.HasPrefix(c, "apt-get install") }) {
		t.Errorf("kubeadm not held again after the session was killed; calls:\n%s", strings.Join(calls, "\n"))
	}
	if _, err := os.Stat(filepath.Join(f.state(), "unheld")); err == nil {
		t.Error("the note of the packages unheld is left after they were held again")
	}
}

// What an install killed before it could hold again left (the packages it unheld, written down
// first) is put right by the next install, whatever that one then does: it holds them again
// and finishes dpkg before anything else, even when its own version is refused.
func TestPackageInstallFinishesWhatAKilledOneLeft(t *testing.T) {
	f := newFakeApt(t, "1.31.1-1.1")
	if err := os.MkdirAll(f.state(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.state(), "unheld"), []byte("kubelet kubectl\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err, calls, _ := runPkgInstall(t, f, k8sSource, "kubeadm", "1.31.99")
	if err == nil {
		t.Fatalf("install of a version not offered succeeded:\n%s", out)
	}
	hold, update := slices.Index(calls, "apt-mark hold kubelet kubectl"), slices.IndexFunc(calls, func(c string) bool { return strings.HasPrefix(c, "apt-get update") })
	if hold < 0 || hold > update || !slices.Contains(calls[:hold], "dpkg --configure -a") {
		t.Errorf("the packages an earlier install left unheld are not held again first (after dpkg --configure -a); calls:\n%s", strings.Join(calls, "\n"))
	}
	if _, err := os.Stat(filepath.Join(f.state(), "unheld")); err == nil {
		t.Error("the note of the packages unheld is left after they were held again")
	}
}

// The source is moved to the new minor only once that minor is known to offer the version: a
// version it lacks leaves the source as it was, so that a failed install does not leave the
// host on the new minor's repository.
func TestPackageInstallLeavesTheSourceWhenTheVersionIsMissing(t *testing.T) {
	f := newFakeApt(t, "1.31.1-1.1")
	out, err, calls, source := runPkgInstall(t, f, k8sSource, "kubeadm", "1.31.99")
	if err == nil {
		t.Fatalf("install succeeded:\n%s", out)
	}
	if source != k8sSource {
		t.Errorf("source after the refusal:\n%s\nwant it as it was:\n%s", source, k8sSource)
	}
	for _, c := range calls {
		if strings.HasPrefix(c, "apt-get update") && !strings.Contains(c, "Dir::Etc::sourcelist="+f.state()+"/source") {
			t.Errorf("apt-get update did not read the moved copy of the source: %s", c)
		}
	}
}
