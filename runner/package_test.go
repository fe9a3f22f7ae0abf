package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
)

// TestPackageBackendArgs: package hands its other arguments to apt as Ansible's package hands
// them to the module it picks: apt's update_cache is apt's; dnf's enablerepo loads (a role's
// RedHat task beside its Debian ones) and fails on a host with apt as Ansible's apt fails it,
// before apt-get runs.
func TestPackageBackendArgs(t *testing.T) {
	d, bin := fakeBin(t, map[string]string{"dpkg-query": fakeDpkgQuery, "apt-cache": fakeAptCache, "apt-get": fakeAptGet})
	for _, p := range []string{"available", "installed"} {
		os.MkdirAll(filepath.Join(bin, p), 0o755)
	}
	os.WriteFile(filepath.Join(bin, "available", "curl"), []byte("8.0"), 0o644)
	recap, _, rec := run(t, d, "all:\n  hosts:\n    h1:\n", `- hosts: all
  tasks:
    - name: redhat only
      package: {name: epel-release, state: present, enablerepo: epel}
      when: ansible_os_family == 'RedHat'
    - {name: on apt, package: {name: curl, state: present, enablerepo: epel}, ignore_errors: true, register: r}
    - {name: apt's own, package: {name: curl, state: present, update_cache: true}}
`, runner.PlayOptions{})
	want := "task_ok Gathering Facts\ntask_skipped redhat only\ntask_failed on apt\ntask_changed apt's own"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("results:\n%s\nwant\n%s", got, want)
	}
	if m, _ := reg(t, recap, "h1", "r")["msg"].(string); !strings.HasPrefix(m, "Unsupported parameters for (ansible.legacy.apt) module: enablerepo. Supported parameters include: ") {
		t.Errorf("enablerepo on apt: msg %q", m)
	}
	log, _ := os.ReadFile(filepath.Join(bin, "log"))
	if !strings.HasPrefix(string(log), "apt-get update -q\n") || strings.Count(string(log), "install curl") != 1 {
		t.Errorf("apt-get calls:\n%s\nwant the cache updated, then curl installed once", log)
	}
}
