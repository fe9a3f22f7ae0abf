package upgrade

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runRepair runs packagesRepairScript with its folder moved to dir and apt-mark, dpkg stand-ins
// that log their calls to dir/calls (dpkg --audit reports dir/audit); it returns the output,
// the error and the calls.
func runRepair(t *testing.T, dir string) (string, error, string) {
	t.Helper()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"apt-mark": ``,
		"dpkg":     `[ "$1" = --audit ] && cat "$D/audit" 2>/dev/null; [ "$1" = --configure ] && rm -f "$D/audit"; exit 0`,
	} {
		script := "#!/bin/sh\nD=" + dir + "\necho \"" + name + " $*\" >> \"$D/calls\"\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := strings.ReplaceAll(packagesRepairScript, "/var/lib/kupgrade/packages", filepath.Join(dir, "packages"))
	cmd := exec.CommandContext(t.Context(), "sh", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	return string(out), err, string(calls)
}

// The repair abort runs on every node holds again what a killed install left unheld and
// finishes an interrupted dpkg; where nothing is left it changes nothing.
func TestPackagesRepairScript(t *testing.T) {
	dir := t.TempDir()
	if out, err, calls := runRepair(t, dir); err != nil || out != "" || strings.Contains(calls, "apt-mark") {
		t.Fatalf("nothing left: %q %v, calls %q; want nothing done", out, err, calls)
	}
	pk := filepath.Join(dir, "packages")
	if err := os.MkdirAll(pk, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{filepath.Join(pk, "unheld"): "kubeadm\n", filepath.Join(dir, "audit"): "The following packages have been unpacked but not yet configured.\n kubeadm\n"} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, err, calls := runRepair(t, dir)
	if err != nil || !strings.Contains(out, "finished the interrupted dpkg") || !strings.Contains(out, "held kubeadm again") {
		t.Errorf("repair: %q %v", out, err)
	}
	if !strings.Contains(calls, "dpkg --configure -a\n") || !strings.Contains(calls, "apt-mark hold kubeadm\n") {
		t.Errorf("calls:\n%s\nwant dpkg --configure -a and apt-mark hold kubeadm", calls)
	}
	if _, err := os.Stat(filepath.Join(pk, "unheld")); err == nil {
		t.Error("the note of the packages unheld is left")
	}
}
