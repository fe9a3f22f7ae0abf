package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every `upgrade run` ends with a summary: --until says where it stopped and what comes next; a
// whole run gives the versions of every host and the total time; a run with nothing left says so.
func TestRunEndsWithASummary(t *testing.T) {
	f := startFleet(t, 1, nil)
	c := f.Clusters[0].Name
	base := []string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "k.db"), "-i", filepath.Join(f.Inventories, c+".yml")}
	run := func(args ...string) string {
		t.Helper()
		code, out, errs := kupgrade(t, append(base, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		return out
	}
	run("upgrade", "start", "v1.30.1")
	out := run("upgrade", "run", "--until", "upgraded-networking")
	if !regexp.MustCompile(`\nstopped at upgraded-networking as asked; next: kupgrade upgrade run --db \S+ --inventory \S+\n$`).MatchString(out) {
		t.Errorf("upgrade run --until does not end saying it stopped as asked and what is next:\n%s", out)
	}
	out = run("upgrade", "run")
	if !strings.Contains(out, "upgrade of cluster "+c+": v1.29.4 -> v1.30.1, now upgrade-complete") ||
		!regexp.MustCompile(`(?m)^  \S+ +worker +control plane \S+, kubelet v1\.30\.1$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^total time: \S+ this run; the upgrade took \S+ from its start at \S+$`).MatchString(out) || !strings.Contains(out, "next: kupgrade upgrade delete") {
		t.Errorf("a whole upgrade run does not end with its summary:\n%s", out)
	}
	out = run("upgrade", "run")
	if !strings.Contains(out, "nothing to do: the upgrade of cluster "+c+" to v1.30.1 is upgrade-complete") {
		t.Errorf("upgrade run with nothing left does not say so:\n%s", out)
	}
}

// A single step, like upgrade run, ends with the summary, both times (this invocation's and the
// upgrade's) and the next command; a failed one with the retry, which recover then prints too.
func TestSingleStepEndsWithASummary(t *testing.T) {
	f := startFleet(t, 1, func(int) bool { return true }) // controller-1 fails late, once
	c := f.Clusters[0].Name
	base := []string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "k.db"), "-i", filepath.Join(f.Inventories, c+".yml")}
	if code, out, errs := kupgrade(t, append(base, "upgrade", "start", "v1.30.1")...); code != 0 {
		t.Fatalf("start: exit %d\n%s%s", code, out, errs)
	}
	_, out, _ := kupgrade(t, append(base, "upgrade", "download-images")...)
	if !regexp.MustCompile(`(?m)^total time: \S+ this run; the upgrade: \S+ since its start at \S+\nnext: kupgrade upgrade \S+ --db `).MatchString(out) {
		t.Errorf("a single step does not end with its summary and next:\n%s", out)
	}
	kupgrade(t, append(base, "upgrade", "run", "--until", "upgraded-first-master")...)
	code, out, _ := kupgrade(t, append(base, "host", "upgrade", "controller-1", "control-plane")...)
	if code != 1 || !strings.Contains(out, "run FAILED: cluster "+c+" is in state upgrading-second-master-failed") ||
		!regexp.MustCompile(`(?m)^next: kupgrade host upgrade controller-1 control-plane --db `).MatchString(out) {
		t.Errorf("a failed single step does not end with its summary and the retry (exit %d):\n%s", code, out)
	}
	// recover on a failed state: nothing is stuck, and it says the retry.
	if code, out, _ = kupgrade(t, append(base, "recover")...); code != 0 || !strings.Contains(out, "retry with: kupgrade host upgrade controller-1 control-plane --db ") {
		t.Errorf("recover on a failed state does not print the retry (exit %d):\n%s", code, out)
	}
}
