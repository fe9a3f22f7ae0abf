package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// fakeSystemctl keeps units as files in its folder: NAME.unit (installed), NAME.active,
// NAME.enabled, and logs every call. It answers show with a multi-line ExecStart, as systemd does.
const fakeSystemctl = `#!/bin/sh
d=$(dirname "$0")
echo "systemctl $*" >> "$d/log"
set -- $(for a; do case $a in -*) ;; *) echo "$a";; esac; done)
u=$2
case $1 in
show)
  echo "Id=$u"
  if [ -e "$d/$u.unit" ]; then echo LoadState=loaded; else echo LoadState=not-found; fi
  if [ -e "$d/$u.active" ]; then echo ActiveState=active; else echo ActiveState=inactive; fi
  echo 'ExecStart={ path=/bin/true ; argv[]=/bin/true'
  echo ' ; status=0/0 }';;
is-enabled) if [ -e "$d/$u.enabled" ]; then echo enabled; else echo disabled; exit 1; fi;;
start|restart) touch "$d/$u.active";;
stop) rm -f "$d/$u.active";;
enable) touch "$d/$u.enabled";;
disable) rm -f "$d/$u.enabled";;
reload|daemon-reload) ;;
*) echo "Unknown command verb $1." >&2; exit 1;;
esac
`

const fakeService = `#!/bin/sh
d=$(dirname "$0")
echo "service $*" >> "$d/log"
[ -e "$d/$1.unit" ] || { echo "$1: unrecognized service" >&2; exit 1; }
case $2 in
status) [ -e "$d/$1.active" ];;
start|restart) touch "$d/$1.active";;
stop) rm -f "$d/$1.active";;
esac
`

// fakeBin writes the scripts into a folder put first on PATH and installs the unit web.
func fakeBin(t *testing.T, scripts map[string]string) (*runnertest.LocalDialer, string) {
	t.Helper()
	bin := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(bin, "web.unit"), nil, 0o644)
	return &runnertest.LocalDialer{Env: []string{"PATH=" + bin + ":" + os.Getenv("PATH")}}, bin
}

func TestSystemdModule(t *testing.T) {
	d, bin := fakeBin(t, map[string]string{"systemctl": fakeSystemctl})
	recap, _, rec := run(t, d, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - {name: first, systemd: {name: web, state: started, enabled: true, daemon_reload: true}, register: first}
    - {name: again, ansible.builtin.systemd: {name: web, state: started, enabled: true}, register: again}
    - {name: restart, systemd_service: {name: web, state: restarted}}
    - {name: would stop, systemd: {name: web, state: stopped, enabled: false}, check_mode: true, register: would}
    - {name: stop, systemd: {name: web, state: stopped, enabled: false}}
    - {name: missing, systemd: {name: nope, state: started}, ignore_errors: true, register: missing}
`, runner.PlayOptions{})
	want := "task_changed first\ntask_ok again\ntask_changed restart\ntask_changed would stop\ntask_changed stop\ntask_failed missing"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("results:\n%s\nwant\n%s", got, want)
	}
	log, _ := os.ReadFile(filepath.Join(bin, "log"))
	var acts []string
	for l := range strings.SplitSeq(strings.TrimSpace(string(log)), "\n") {
		if !strings.Contains(l, " show ") && !strings.Contains(l, " is-enabled ") {
			acts = append(acts, l)
		}
	}
	wantActs := "systemctl daemon-reload\nsystemctl enable web\nsystemctl start web\nsystemctl restart web\nsystemctl disable web\nsystemctl stop web"
	if got := strings.Join(acts, "\n"); got != wantActs {
		t.Errorf("systemctl actions:\n%s\nwant (none in check mode)\n%s", got, wantActs)
	}
	first := reg(t, recap, "h1", "first")
	if first["enabled"] != true || first["state"] != "started" || first["name"] != "web" {
		t.Errorf("first = %v", first)
	}
	st := reg(t, recap, "h1", "again")["status"].(map[string]any)
	if st["ActiveState"] != "active" || !strings.HasSuffix(st["ExecStart"].(string), "status=0/0 }") {
		t.Errorf("status = %v", st)
	}
	if w := reg(t, recap, "h1", "would"); w["enabled"] != false || w["state"] != "stopped" {
		t.Errorf("check mode result = %v", w)
	}
	if m := reg(t, recap, "h1", "missing")["msg"]; m != "Could not find the requested service nope: host" {
		t.Errorf("missing unit: %v", m)
	}
}

func TestServiceModuleWithoutSystemd(t *testing.T) {
	if _, err := os.Stat("/run/systemd/system"); err == nil {
		t.Skip("this machine runs systemd: the service module would use systemctl")
	}
	d, bin := fakeBin(t, map[string]string{"service": fakeService})
	recap, _, rec := run(t, d, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - {name: start, service: {name: web, state: started}, register: start}
    - {name: again, service: {name: web, state: started}}
    - {name: reload, service: {name: web, state: reloaded}}
    - {name: stop, service: {name: web, state: stopped}, register: stop}
    - {name: missing, service: {name: nope, state: started}, ignore_errors: true, register: missing}
`, runner.PlayOptions{})
	want := "task_changed start\ntask_ok again\ntask_changed reload\ntask_changed stop\ntask_failed missing"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("results:\n%s\nwant\n%s", got, want)
	}
	if r := reg(t, recap, "h1", "stop"); r["state"] != "stopped" || r["name"] != "web" {
		t.Errorf("stop = %v", r)
	}
	if m := reg(t, recap, "h1", "missing")["msg"]; m != "Could not find the requested service nope: host" {
		t.Errorf("missing service: %v", m)
	}
	log, _ := os.ReadFile(filepath.Join(bin, "log"))
	if !strings.Contains(string(log), "service web reload") || strings.Count(string(log), "service web start") != 1 {
		t.Errorf("service calls:\n%s", log)
	}
}
