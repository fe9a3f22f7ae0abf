package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Each run keeps a log under the log folder: its path is said on stderr as the first task starts
// and last, and it
// holds every task with its time and its whole output, kubeadm's SUCCESS line included. The
// folder keeps the newest keepRunLogs logs.
func TestRunLogKeepsEveryTaskAndItsOutput(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUPGRADE_LOG_DIR", dir)
	for i := range keepRunLogs + 5 { // older runs' logs
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("run-20200101T000000.%03dZ-1.log", i)), nil, 0o600))
	}
	f := startFleet(t, 1, nil)
	base := []string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "k.db"), "-i", filepath.Join(f.Inventories, f.Clusters[0].Name+".yml")}
	if code, out, errs := kupgrade(t, append(base, "upgrade", "start", "v1.30.1")...); code != 0 {
		t.Fatalf("upgrade start: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := kupgrade(t, append(base, "upgrade", "run", "--until", "upgraded-first-master")...)
	paths := regexp.MustCompile(`(?m)^kupgrade: run log: (\S+)$`).FindAllStringSubmatch(errs, -1)
	if code != 0 || len(paths) != 2 || paths[0][1] != paths[1][1] || !strings.HasSuffix(errs, paths[0][0]+"\n") {
		t.Fatalf("upgrade run: exit %d, want the run log's path on stderr as the first task starts, and last\n%s%s", code, out, errs)
	}
	b, err := os.ReadFile(paths[0][1])
	must(t, err)
	log := string(b)
	for _, want := range []string{
		`(?m)^\d{4}-\d\d-\d\dT\S+ task_changed \[controller-0\] \[kubeadm upgrade\] rc=0 took \S+$`,
		`(?m)^  \| \[upgrade/successful\] SUCCESS! Your cluster was upgraded to "v1.30.1"`,
		`(?m)^\S+ state_changed .*upgrading-first-master -> upgraded-first-master`,
	} {
		if !regexp.MustCompile(want).MatchString(log) {
			t.Errorf("the run log has no line matching %s:\n%s", want, log)
		}
	}
	if logs, _ := filepath.Glob(filepath.Join(dir, "run-*.log")); len(logs) != keepRunLogs {
		t.Errorf("%d run logs kept, want %d", len(logs), keepRunLogs)
	}
}

// A command that runs no task (a plan from the records) leaves no run log and says nothing of one.
func TestNoRunLogWithoutATask(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUPGRADE_LOG_DIR", dir)
	db, inv, _ := recorded(t, "upgrade-started")
	code, out, errs := run(t, "--db", db, "-i", inv, "upgrade", "plan", "--recorded")
	if logs, _ := filepath.Glob(filepath.Join(dir, "*")); code != 0 || len(logs) != 0 || strings.Contains(errs, "run log") {
		t.Errorf("upgrade plan --recorded: exit %d, run logs %v\n%s%s", code, logs, out, errs)
	}
}
