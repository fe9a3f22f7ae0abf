package upgrade_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// etcdSim is etcd on the fake cluster's members for abort's restore: what each member's
// discovery reads, the manifests its stop moved aside, the restore mark in its data dir.
type etcdSim struct {
	f        *fixture
	mu       sync.Mutex
	uuid     string
	conf     map[string]string            // host -> discovery lines (config, flags, image, tools)
	aside    map[string]map[string]string // host -> component -> tag, moved aside
	marks    map[string]string            // host -> the data dir's restore mark
	restored map[string]int               // host -> restores run
	fail     string                       // a member whose restore fails
}

const peer = "https://%s:2380"

func stackedMember(host, tool string) string {
	l := "kupgrade-etcd-member "
	return l + "config /etc/kubernetes/manifests/etcd.yaml\n" + l + "flag name=" + host + "\n" +
		l + "flag initial-advertise-peer-urls=" + fmt.Sprintf(peer, host) + "\n" + l + "flag initial-cluster=" + host + "=" + fmt.Sprintf(peer, host) + "\n" +
		l + "flag data-dir=/var/lib/etcd\n" + l + "image registry.k8s.io/etcd:3.5.12-0\n" + tool
}

func newEtcdSim(t *testing.T, f *fixture) *etcdSim {
	u := f.wantState(t, state.UpgradedFirstMaster)
	s := &etcdSim{f: f, uuid: u.UUID, aside: map[string]map[string]string{}, marks: map[string]string{}, restored: map[string]int{},
		conf: map[string]string{}}
	for _, h := range []string{"controller-0", "controller-1"} {
		s.conf[h] = stackedMember(h, "kupgrade-etcd-member tool etcdutl\n")
	}
	f.c.answer = s.answer
	f.c.onPlay = s.play
	return s
}

// answer is the member's side of the discovery, the mark and the aside scripts.
func (s *etcdSim) answer(host, cmd string) (string, bool) {
	if !strings.Contains(cmd, "kupgrade-etcd-member") {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.Contains(cmd, "kupgrade-restored") {
		return "kupgrade-etcd-member mark " + s.marks[host] + "\n", true
	}
	out := ""
	if strings.Contains(cmd, "for t in etcdutl") {
		out = s.conf[host]
	}
	for c, tag := range s.aside[host] {
		out += "kupgrade-etcd-member aside " + c + " " + tag + "\n"
	}
	return out, true
}

// play does each phase to the members; the abort playbook restores into the aside folder.
func (s *etcdSim) play(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
	if !strings.HasPrefix(name, "etcd-restore:") {
		return nil, nil, false
	}
	c := s.f.c
	c.mu.Lock()
	defer c.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	recap := &runner.Recap{Hosts: map[string]*runner.HostRecap{}, Registered: map[string]map[string]any{}}
	var err error
	for _, h := range strings.Split(limit, ":") {
		snap := c.snaps[h]
		if len(snap.Manifests) > 0 && s.aside[h] != nil { // what the abort playbook wrote aside
			maps.Copy(s.aside[h], snap.Manifests)
			snap.Manifests = map[string]string{}
		}
		out := name
		switch name {
		case "etcd-restore:stop":
			if s.aside[h] == nil {
				s.aside[h] = map[string]string{}
			}
			maps.Copy(s.aside[h], snap.Manifests)
			snap.Manifests = map[string]string{}
		case "etcd-restore:restore":
			if h == s.fail {
				recap.Failures = append(recap.Failures, &runner.HostError{Host: h, Task: "Run this phase of the restore",
					Result: map[string]any{"rc": 1, "stderr": "Error: write /var/lib/etcd.kupgrade-restore-x/member/snap/db: no space left on device", "stdout": ""}})
				err = errors.New("1 host failed")
				continue
			}
			s.marks[h], s.restored[h] = s.uuid+" "+sumOf(snapData), s.restored[h]+1
			out = "restored /var/lib/etcd from the snapshot"
		case "etcd-restore:start":
			snap.Manifests = s.aside[h]
			delete(s.aside, h)
		}
		c.snaps[h] = snap
		recap.Registered[h] = map[string]any{"etcd_restore": map[string]any{"stdout": out}}
	}
	return recap, err, true
}

// scripts are the per-host scripts of the i-th play.
func (f *fixture) scripts(i int) map[string]string {
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	m, _ := f.c.vars[i]["kupgrade_etcd_restore_script"].(map[string]string)
	return m
}

// restorePlays are the plays from the first of the etcd restore on.
func restorePlays(f *fixture) []string {
	plays := f.c.played()
	i := slices.IndexFunc(plays, func(p string) bool { return strings.HasPrefix(p, "etcd-restore") })
	if i < 0 {
		return nil
	}
	return plays[i:]
}

// TestAbortRestoresEtcd: with a stacked etcd moved to a newer minor, abort --restore-etcd stops
// every controller's static pods, restores the manifests in the aside folder, restores each member
// from the verified snapshot with its own name and peer URL and the whole cluster's, puts the
// manifests back and ends upgrade-aborted, an event per member restored.
func TestAbortRestoresEtcd(t *testing.T) {
	f := newFixture(t)
	snapshotCluster(t, f, sumOf(snapData))
	withEtcd(t, f, "3.5.12-0", "3.6.4-0")
	sim := newEtcdSim(t, f)
	f.w.RestoreEtcd = true
	if err := f.w.Abort(t.Context()); err != nil {
		t.Fatalf("abort: %v", err)
	}
	f.wantState(t, state.UpgradeAborted)
	want := []string{"etcd-restore:stop@controller-0:controller-1", "abort@controller-0",
		"etcd-restore:restore@controller-0:controller-1", "etcd-restore:start@controller-0:controller-1", "etcd-restore:health@controller-0:controller-1"}
	if got := restorePlays(f); !slices.Equal(got, want) {
		t.Fatalf("plays = %v; want %v", got, want)
	}
	first := len(f.c.played()) - 5
	vars := f.c.vars[first+1]["abort_restore"].(map[string]any)["controller-0"].(map[string]any)
	if vars["manifests"] != "/etc/kubernetes/kupgrade-etcd-restore-"+sim.uuid {
		t.Errorf("the abort playbook restores into %v; want the aside folder", vars["manifests"])
	}
	script := f.scripts(first + 2)["controller-1"]
	for _, s := range []string{"etcdutl snapshot restore", "--name 'controller-1'", "--initial-advertise-peer-urls 'https://controller-1:2380'",
		"--initial-cluster 'controller-0=https://controller-0:2380,controller-1=https://controller-1:2380'", "D='/var/lib/etcd'",
		`mv "$D" "$B"`, "MARK='" + sim.uuid + " " + sumOf(snapData) + "'"} {
		if !strings.Contains(script, s) {
			t.Errorf("controller-1's restore script lacks %q:\n%s", s, script)
		}
	}
	if got := f.c.snaps["controller-0"].Manifests["etcd"]; got != "3.5.12-0" {
		t.Errorf("controller-0's etcd.yaml at %s after the abort; want 3.5.12-0", got)
	}
	if !eventSays(t, f, "etcd member restored from the snapshot") || sim.restored["controller-0"] != 1 || sim.restored["controller-1"] != 1 {
		t.Errorf("restores %v; want one per member, each recorded", sim.restored)
	}
}

// TestAbortEtcdRestoreRetry: a restore that fails on one member fails the abort naming the
// member, the task and what it printed, and a retry with --restore-etcd; a plain abort then
// refuses (the manifests left aside say a restore is under way, which only --restore-etcd
// finishes) and changes nothing; the retry with --restore-etcd restores only that member and
// puts everything back.
func TestAbortEtcdRestoreRetry(t *testing.T) {
	inBubble(t, func(t *testing.T, f *fixture) {
		snapshotCluster(t, f, sumOf(snapData))
		withEtcd(t, f, "3.5.12-0", "3.6.4-0")
		sim := newEtcdSim(t, f)
		sim.fail = "controller-1"
		f.w.RestoreEtcd = true
		err := f.w.Abort(t.Context())
		if err == nil || !strings.Contains(err.Error(), `controller-1: task "Run this phase of the restore": Error: write`) || !strings.Contains(err.Error(), "no space left on device") {
			t.Fatalf("abort: %v; want the member, its task and what it printed", err)
		}
		if se := (*upgrade.StepError)(nil); !errors.As(err, &se) || se.Retry != "kupgrade upgrade abort --restore-etcd" {
			t.Errorf("abort: %#v; want the retry `kupgrade upgrade abort --restore-etcd`", err)
		}
		f.wantState(t, state.UpgradeAbortingFailed)
		sim.fail = ""
		before := len(f.c.played())
		f.w.RestoreEtcd = false
		if err := f.w.Abort(t.Context()); !errors.Is(err, state.ErrRefused) || !strings.Contains(err.Error(), "`kupgrade upgrade abort --restore-etcd` finishes that restore") {
			t.Fatalf("plain abort of a restore under way: %v; want it refused, naming --restore-etcd", err)
		}
		if got := f.c.played()[before:]; len(got) != 0 || sim.restored["controller-1"] != 0 {
			t.Fatalf("the plain abort played %v, restores %v; want nothing", got, sim.restored)
		}
		f.w.RestoreEtcd = true
		if err := f.w.Abort(t.Context()); err != nil {
			t.Fatalf("abort again: %v", err)
		}
		f.wantState(t, state.UpgradeAborted)
		want := []string{"etcd-restore:stop@controller-0:controller-1", "etcd-restore:restore@controller-1",
			"etcd-restore:start@controller-0:controller-1", "etcd-restore:health@controller-0:controller-1"}
		if got := f.c.played()[before:]; !slices.Equal(got, want) {
			t.Errorf("the retry played %v; want %v", got, want)
		}
		if sim.restored["controller-0"] != 1 || sim.restored["controller-1"] != 1 {
			t.Errorf("restores %v; want each member restored once", sim.restored)
		}
		if got := f.c.snaps["controller-1"].Manifests["kube-apiserver"]; got != "v1.29.4" {
			t.Errorf("controller-1's kube-apiserver.yaml at %q; want it back at v1.29.4", got)
		}
	})
}

// TestAbortEtcdRestoreRefused: a member kupgrade cannot restore (no restore tool there) makes
// abort refuse before anything runs, naming the member, what is missing and the manual
// commands; --etcd-restored stays the way out.
func TestAbortEtcdRestoreRefused(t *testing.T) {
	f := newFixture(t)
	snapshotCluster(t, f, sumOf(snapData))
	withEtcd(t, f, "3.5.12-0", "3.5.12-0")
	sim := newEtcdSim(t, f)
	sim.conf["controller-1"] = stackedMember("controller-1", "")
	f.w.RestoreEtcd = true
	before := len(f.c.played())
	err := f.w.Abort(t.Context())
	if !errors.Is(err, state.ErrRefused) || !strings.Contains(err.Error(), "controller-1: no etcdutl or etcdctl on the host") ||
		!strings.Contains(err.Error(), "etcdutl snapshot restore FILE") || !strings.Contains(err.Error(), "--etcd-restored") {
		t.Fatalf("abort: %v; want a refusal naming controller-1's missing tool and the manual commands", err)
	}
	if got := f.c.played()[before:]; len(got) != 0 {
		t.Errorf("played %v after the refusal; want nothing", got)
	}
	f.wantState(t, state.UpgradedFirstMaster)
}

// externalEtcd is a fixture whose kubeadm uses an external etcd, the inventory's etcd-0 (with
// etcd.service and etcdctl), at upgraded-first-master with its snapshot taken.
func externalEtcd(t *testing.T) *fixture {
	f := newFixtureWith(t, withEtcdGroup)
	snapshotCluster(t, f, sumOf(snapData))
	f.c.results["kubeadm-config"] = runnertest.Result{Stdout: "### kupgrade-health kubeadm-config rc=0\netcd:\n  external:\n    endpoints: [http://etcd-0:2379]\n"}
	f.c.results["etcd-snapshot.db"] = runnertest.Result{Stdout: snapData} // the external snapshot's path
	f.at(t, state.UpgradedFirstMaster)
	sim := newEtcdSim(t, f)
	l := "kupgrade-etcd-member "
	sim.conf["etcd-0"] = l + "config /etc/default/etcd\n" + l + "flag name=etcd-0\n" + l + "flag initial-advertise-peer-urls=http://etcd-0:2380\n" +
		l + "flag data-dir=/var/lib/etcd/default\n" + l + "unit etcd\n" + l + "tool etcdctl\n"
	return f
}

// TestAbortExternalEtcdNoUnit: an external member kupgrade cannot stop and start (no
// etcd.service) makes abort refuse before anything runs, naming it, with the manual commands.
func TestAbortExternalEtcdNoUnit(t *testing.T) {
	f := externalEtcd(t)
	f.c.answer = func(host, cmd string) (string, bool) {
		if host == "etcd-0" && strings.Contains(cmd, "for t in etcdutl") {
			return "kupgrade-etcd-member config /etc/default/etcd\nkupgrade-etcd-member flag name=etcd-0\n" +
				"kupgrade-etcd-member flag initial-advertise-peer-urls=http://etcd-0:2380\nkupgrade-etcd-member flag data-dir=/var/lib/etcd/default\nkupgrade-etcd-member tool etcdctl\n", true
		}
		return "", false
	}
	f.w.RestoreEtcd = true
	before := len(f.c.played())
	err := f.w.Abort(t.Context())
	if !errors.Is(err, state.ErrRefused) || !strings.Contains(err.Error(), "etcd-0: no etcd.service to stop and start") || !strings.Contains(err.Error(), "start etcd, then put the API servers' manifests back") {
		t.Fatalf("abort: %v; want a refusal naming etcd-0 and the manual commands for an external etcd", err)
	}
	if got := f.c.played()[before:]; len(got) != 0 {
		t.Errorf("played %v after the refusal; want nothing", got)
	}
	f.wantState(t, state.UpgradedFirstMaster)
}

const withEtcdGroup = twoPlusOne + `    etcd:
      hosts:
        etcd-0:
`

// TestAbortRestoresExternalEtcd: with an external etcd (kubeadm's etcd.external) the members are
// the inventory's etcd group: the stop stops the API servers and etcd.service, the restore runs
// on the etcd host only (with its etcdctl), the start starts etcd.service and puts the
// controllers' manifests back.
func TestAbortRestoresExternalEtcd(t *testing.T) {
	f := externalEtcd(t)
	f.w.RestoreEtcd = true
	if err := f.w.Abort(t.Context()); err != nil {
		t.Fatalf("abort: %v", err)
	}
	f.wantState(t, state.UpgradeAborted)
	all := "controller-0:controller-1:etcd-0"
	want := []string{"etcd-restore:stop@" + all, "abort@controller-0", "etcd-restore:restore@etcd-0", "etcd-restore:start@" + all, "etcd-restore:health@" + all}
	if got := restorePlays(f); !slices.Equal(got, want) {
		t.Fatalf("plays = %v; want %v", got, want)
	}
	first := len(f.c.played()) - 5
	stop, restore := f.scripts(first)["etcd-0"], f.scripts(first + 2)["etcd-0"]
	if !strings.Contains(stop, "systemctl stop etcd") || strings.Contains(stop, "/etc/kubernetes/manifests") {
		t.Errorf("etcd-0's stop script:\n%s\nwant etcd.service stopped and no manifest moved", stop)
	}
	if !strings.Contains(restore, "ETCDCTL_API=3 etcdctl snapshot restore") || !strings.Contains(restore, "--initial-cluster 'etcd-0=http://etcd-0:2380'") {
		t.Errorf("etcd-0's restore script:\n%s", restore)
	}
}
