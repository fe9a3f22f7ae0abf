package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Each run keeps a log: its path is said on stderr as the first task starts and last, and it
// holds every task with its time and its whole output, kubeadm's SUCCESS line included. It is
// the upgrade's (clusters/CLUSTER/UUID under the log folder), never pruned by other runs.
func TestRunLogKeepsEveryTaskAndItsOutput(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUPGRADE_LOG_DIR", dir)
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
	if d := filepath.Dir(paths[0][1]); filepath.Dir(filepath.Dir(d)) != filepath.Join(dir, "clusters") {
		t.Errorf("the run log is in %s, want clusters/CLUSTER/UUID under %s", d, dir)
	}
	b, err := os.ReadFile(paths[0][1])
	must(t, err)
	log := string(b)
	for _, want := range []string{
		`(?m)^\d{4}-\d\d-\d\dT\S+ task_changed \[controller-0\] \[kubeadm upgrade\] rc=0 took \S+$`,
		`(?m)^  \| \[upgrade/successful\] SUCCESS! Your cluster was upgraded to "v1.30.1"`,
		`(?m)^\S+ state_changed .*upgrading-first-master -> upgraded-first-master`,
		`(?m)^# outcome: ok$`,
	} {
		if !regexp.MustCompile(want).MatchString(log) {
			t.Errorf("the run log has no line matching %s:\n%s", want, log)
		}
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

// A play's logs are kept by age: a play deletes the play logs older than runLogAge, and no
// other folder's (an upgrade's logs stay, however many and however old).
func TestPlayLogsArePrunedByAgeOnly(t *testing.T) {
	inv, play := writeLivePlay(t)
	dir := t.TempDir()
	t.Setenv("KUPGRADE_LOG_DIR", dir)
	old := time.Now().Add(-runLogAge - time.Hour)
	mk := func(d string, i int, at time.Time) string {
		must(t, os.MkdirAll(d, 0o700))
		p := filepath.Join(d, fmt.Sprintf("run-20200101T000000.%03dZ-1.log", i))
		must(t, os.WriteFile(p, nil, 0o600))
		must(t, os.Chtimes(p, at, at))
		return p
	}
	upgradeDir := upgradeLogDir(dir, "prod/east", "u-1")
	for i := range 60 {
		mk(upgradeDir, i, old)
	}
	stale, fresh := mk(filepath.Join(dir, "play"), 0, old), mk(filepath.Join(dir, "play"), 1, time.Now())
	run(t, "-i", inv, "play", play)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a play log older than %s is kept", runLogAge)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a recent play log is gone: %v", err)
	}
	if logs, _ := filepath.Glob(filepath.Join(upgradeDir, "run-*.log")); len(logs) != 60 {
		t.Errorf("%d of the upgrade's 60 logs left after a play, want all", len(logs))
	}
	if logs, _ := filepath.Glob(filepath.Join(dir, "play", "run-*.log")); len(logs) != 2 {
		t.Errorf("play logs %v, want the recent one and this play's", logs)
	}
}

// Folder names of clusters cannot collide nor leave their folder.
func TestFolderNamesDoNotCollide(t *testing.T) {
	seen := map[string]string{}
	for _, c := range []string{"prod/east", "prod_east", "prod east", "prod%2Feast", "..", ".", ""} {
		n := folderName(c)
		if prev, ok := seen[n]; ok || strings.ContainsAny(n, `/.\ `) || n == "" {
			t.Errorf("folder name %q of %q (collides with %q: %v)", n, c, prev, ok)
		}
		seen[n] = c
	}
}

// The run logs follow --db: beside a SQLite file, and for MySQL in a folder of the state folder
// named for the servers and the database, never holding the password.
func TestRunLogRootFollowsTheDatabase(t *testing.T) {
	t.Setenv("KUPGRADE_LOG_DIR", "")
	t.Setenv("XDG_STATE_HOME", filepath.Join(t.TempDir(), "state"))
	for db, want := range map[string]string{
		"sqlite:/srv/k/prod.db":                        "/srv/k/runs",
		"mysql://ku:s3cr3t@db1:3306,db2:3306/kupgrade": filepath.Join(filepath.Dir(defaultDB()), "runs", "mysql", "db1%3A3306%2Cdb2%3A3306%2Fkupgrade"),
	} {
		a := newApp(&Globals{DB: db, LogLevel: "info"}, strings.NewReader(""), io.Discard, io.Discard)
		if got := a.runLogRoot(); got != want || strings.Contains(got, "s3cr3t") {
			t.Errorf("--db %s: run logs in %s, want %s", db, got, want)
		}
	}
}

// The runs of no one upgrade (play, fleet run, watch) have their own folders, pruned by age.
func TestRunLogFolderOfRunsOfNoUpgrade(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUPGRADE_LOG_DIR", dir)
	for cmd, want := range map[string]string{"play <playbook>": "play", "fleet run": "fleet", "watch": "watch"} {
		a := newApp(&Globals{LogLevel: "info"}, strings.NewReader(""), io.Discard, io.Discard)
		a.cmdName = cmd
		if got, byAge := a.runLogFolder(); got != filepath.Join(dir, want) || !byAge {
			t.Errorf("%s: run logs in %s (by age: %v), want %s by age", cmd, got, byAge, filepath.Join(dir, want))
		}
	}
}
