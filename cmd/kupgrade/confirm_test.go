package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// typed runs kupgrade with answer typed on its stdin.
func typed(t *testing.T, answer string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(answer), &out, &errb)
	return code, out.String(), errb.String()
}

// onTerminal makes stdin a terminal for the test.
func onTerminal(t *testing.T) {
	old := isTerminal
	isTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { isTerminal = old })
}

// recorded starts an upgrade of a cluster whose hosts cannot be reached and sets its state.
func recorded(t *testing.T, st string) (db, inv, file string) {
	t.Helper()
	return handEdited(t, t.TempDir(), "controller-0: {ansible_host: 127.0.0.1, ansible_port: 1}", "UPDATE kube_upgrade SET state = '"+st+"'")
}

// On a terminal, upgrade delete, abort and run and fleet run say what they will do and ask; any
// answer but y changes nothing (exit 3); y goes on.
func TestDestructiveCommandsAskOnATerminal(t *testing.T) {
	onTerminal(t)
	started, inv, _ := recorded(t, "upgraded-networking")
	db, _, _ := recorded(t, "upgrade-aborted")
	for _, args := range [][]string{{"--db", db, "upgrade", "delete"}, {"--db", started, "upgrade", "abort"}, {"--db", started, "upgrade", "run"}} {
		code, _, errs := typed(t, "n\n", append([]string{"-i", inv}, args...)...)
		if code != exitRefused || !strings.Contains(errs, "cluster default: upgrade v1.29.4 -> v1.30.1, state upgrade") ||
			!strings.Contains(errs, "Proceed? [y/N]") || !strings.Contains(errs, "nothing was changed") {
			t.Errorf("%s answered n: exit %d, want %d after the question\n%s", args, code, exitRefused, errs)
		}
	}
	if code, out, _ := run(t, "--db", started, "-i", inv, "upgrade", "show"); code != 0 || !strings.Contains(out, "upgraded-networking") {
		t.Fatalf("after the refusals the upgrade changed: exit %d\n%s", code, out)
	}
	if code, out, errs := typed(t, "y\n", "--db", db, "-i", inv, "upgrade", "delete"); code != 0 || !strings.Contains(out, "deleted") {
		t.Errorf("upgrade delete answered y: exit %d\n%s%s", code, out, errs)
	}
	fresh := filepath.Join(t.TempDir(), "fleet.db")
	code, _, errs := typed(t, "", "--db", "sqlite:"+fresh, "-i", inv, "fleet", "run", "--to", "v1.30.1")
	if _, err := os.Stat(fresh); code != exitRefused || !strings.Contains(errs, "fleet run: upgrade 1 cluster(s) to v1.30.1") || err == nil {
		t.Errorf("fleet run with no answer: exit %d, database made: %v\n%s", code, err == nil, errs)
	}
}

// -y skips the question, and a stdin that is not a terminal never asks.
func TestYesAndScriptsNeverAsk(t *testing.T) {
	db, inv, _ := recorded(t, "upgrade-aborted")
	if code, out, errs := typed(t, "n\n", "--db", db, "-i", inv, "upgrade", "delete"); code != 0 || strings.Contains(errs, "Proceed?") {
		t.Errorf("upgrade delete from a script: exit %d, want 0 without a question\n%s%s", code, out, errs)
	}
	onTerminal(t)
	db, inv, _ = recorded(t, "upgrade-aborted")
	if code, out, errs := typed(t, "n\n", "--db", db, "-i", inv, "upgrade", "delete", "-y"); code != 0 || strings.Contains(errs, "Proceed?") {
		t.Errorf("upgrade delete -y: exit %d, want 0 without a question\n%s%s", code, out, errs)
	}
}

// upgrade run's question lists the steps it will run, one line each as KubeOne's apply does,
// with the hosts and versions, and the overrides given at the start; a no changes nothing.
func TestRunQuestionListsTheSteps(t *testing.T) {
	onTerminal(t)
	f := startFleet(t, 1, func(int) bool { return false })
	base := []string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "k.db"), "-i", filepath.Join(f.Inventories, f.Clusters[0].Name+".yml")}
	if code, out, errs := typed(t, "", append(base, "upgrade", "start", "v1.30.1", "--skip-check", "etcd")...); code != 0 {
		t.Fatalf("upgrade start: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs := typed(t, "n\n", append(base, "upgrade", "run")...)
	for _, want := range []string{
		"~ download-images on the controllers\n",
		"~ upgrade control plane node \"controller-0\": v1.29.4 -> v1.30.1\n",
		"~ upgrade control plane node \"controller-1\": v1.29.4 -> v1.30.1\n",
		"~ upgrade kubelet of node \"worker-0\": v1.29.4 -> v1.30.1\n",
		"~ complete (on the database)\n",
		"overrides in force: --skip-check etcd",
		"Proceed? [y/N]",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("upgrade run's question lacks %q:\n%s", want, errs)
		}
	}
	if code != exitRefused {
		t.Errorf("answered n: exit %d, want %d", code, exitRefused)
	}
}

// abort's question names each host it will roll back with its versions, and what becomes of
// etcd; a no changes nothing.
func TestAbortQuestionNamesHostsAndEtcd(t *testing.T) {
	onTerminal(t)
	f := startFleet(t, 1, func(int) bool { return false })
	base := []string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "k.db"), "-i", filepath.Join(f.Inventories, f.Clusters[0].Name+".yml")}
	for _, args := range [][]string{{"upgrade", "start", "v1.30.1"}, {"upgrade", "run", "-y", "--until", "upgraded-first-master"}} {
		if code, out, errs := typed(t, "", append(base, args...)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	code, _, errs := typed(t, "n\n", append(base, "upgrade", "abort")...)
	for _, want := range []string{"~ roll back control plane node \"controller-0\": v1.30.1 -> v1.29.4\n", "etcd: left as it is, every write kept"} {
		if !strings.Contains(errs, want) {
			t.Errorf("abort's question lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "\"controller-1\"") || code != exitRefused {
		t.Errorf("abort's question names controller-1, which did not move, or a no did not refuse (exit %d):\n%s", code, errs)
	}
}
