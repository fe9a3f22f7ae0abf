package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// The fake apt keeps packages as files: available/NAME and installed/NAME hold a version.
const fakeDpkgQuery = `#!/bin/sh
d=$(dirname "$0"); for n; do :; done
[ -e "$d/installed/$n" ] || { echo "dpkg-query: no packages found matching $n" >&2; exit 1; }
printf 'install ok installed %s' "$(cat "$d/installed/$n")"
`

const fakeAptCache = `#!/bin/sh
d=$(dirname "$0"); n=$2
[ -e "$d/available/$n" ] || exit 0
echo "$n:"; echo "  Installed: $(cat "$d/installed/$n" 2>/dev/null || echo '(none)')"; echo "  Candidate: $(cat "$d/available/$n")"
`

const fakeAptGet = `#!/bin/sh
d=$(dirname "$0"); echo "apt-get $*" >> "$d/log"
verb=; for a; do case $a in -*|*::*|APT*) ;; install|remove|update) verb=$a;; *) [ -n "$verb" ] && set -- "$@" "$a";; esac; done
case $verb in
update) echo "Reading package lists...";;
install) for a; do case $a in -*|*::*|APT*|install) ;; *) n=${a%%=*}; cp "$d/available/$n" "$d/installed/$n"; echo "Setting up $n";; esac; done;;
remove) for a; do case $a in -*|remove) ;; *) rm -f "$d/installed/$a";; esac; done;;
esac
`

func TestAptModule(t *testing.T) {
	d, bin := fakeBin(t, map[string]string{"dpkg-query": fakeDpkgQuery, "apt-cache": fakeAptCache, "apt-get": fakeAptGet})
	for _, p := range []string{"available", "installed"} {
		os.MkdirAll(filepath.Join(bin, p), 0o755)
	}
	for name, v := range map[string]string{"curl": "8.0", "jq": "1.6", "vim": "9.1"} {
		os.WriteFile(filepath.Join(bin, "available", name), []byte(v), 0o644)
	}
	os.WriteFile(filepath.Join(bin, "installed", "vim"), []byte("9.0"), 0o644)
	recap, _, rec := run(t, d, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - {name: install, apt: {name: [curl, jq], update_cache: true, install_recommends: false}, register: inst}
    - {name: again, ansible.builtin.apt: {name: [curl, jq], cache_valid_time: 999999999}, register: again}
    - {name: would upgrade, apt: {name: vim, state: latest}, check_mode: true}
    - {name: upgrade, apt: {name: vim, state: latest}}
    - {name: latest again, apt: {name: vim, state: latest}}
    - {name: remove, package: {name: jq, state: absent}}
    - {name: removed already, package: {name: jq, state: absent}}
    - {name: unknown, apt: {name: nosuch}, ignore_errors: true, register: unknown}
`, runner.PlayOptions{})
	want := "task_changed install\ntask_ok again\ntask_changed would upgrade\ntask_changed upgrade\ntask_ok latest again\ntask_changed remove\ntask_ok removed already\ntask_failed unknown"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("results:\n%s\nwant\n%s", got, want)
	}
	log, _ := os.ReadFile(filepath.Join(bin, "log"))
	wantLog := "apt-get update -q\n" +
		"apt-get -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold -o APT::Install-Recommends=no install curl jq\n" +
		"apt-get -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold install vim\n" +
		"apt-get -y -q remove jq\n"
	if string(log) != wantLog {
		t.Errorf("apt-get calls:\n%s\nwant\n%s", log, wantLog)
	}
	inst := reg(t, recap, "h1", "inst")
	if inst["cache_updated"] != true || !strings.Contains(inst["stdout"].(string), "Setting up jq") {
		t.Errorf("install = %v", inst)
	}
	if reg(t, recap, "h1", "again")["cache_updated"] != false {
		t.Error("cache_valid_time: a fresh cache must not be updated")
	}
	if m := reg(t, recap, "h1", "unknown")["msg"]; m != "No package matching 'nosuch' is available" {
		t.Errorf("unknown package: %v", m)
	}
}

func TestPackageWithoutApt(t *testing.T) {
	d := &runnertest.LocalDialer{Env: withoutTools(t, "apt-get", "dpkg-query")}
	recap, _, _ := run(t, d, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - {package: {name: vim, state: present}, ignore_errors: true, register: r}
`, runner.PlayOptions{})
	r := reg(t, recap, "h1", "r")
	if m, _ := r["msg"].(string); r["failed"] != true || !strings.Contains(m, "package manager is not apt: not supported by kupgrade") {
		t.Errorf("package on a host without apt: %v", r)
	}
}
