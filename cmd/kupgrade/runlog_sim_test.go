package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/sim"
)

// An upgrade's run logs are beside the database in use (runs/clusters/CLUSTER/UUID next to the
// SQLite file), each with its header (command, cluster and upgrade, database, user, version; a
// webhook's scheme and host, never its token) and ending with the finding and the retry;
// `upgrade logs` lists them and `--last` prints the newest; `upgrade delete` deletes them.
func TestSimRunLogsBelongToTheUpgrade(t *testing.T) {
	t.Parallel()
	l := startSim(t, sim.Options{})
	l.env = slices.DeleteFunc(l.env, func(e string) bool { return strings.HasPrefix(e, "KUPGRADE_LOG_DIR=") })
	hook := newWebhook(t)
	notify := hook.srv.URL + "/services/T000/B000/SECRETTOKEN"
	l.want(t, 0, 0, "upgrade", "start", "v1.30.1")
	l.want(t, 0, 0, "upgrade", "run", "--until", "upgraded-second-master")
	if err := l.host(0, "worker-0").InjectFault(sim.Fault{Phase: "preflight", Before: true, Action: sim.Exit, Once: true}); err != nil {
		t.Fatal(err)
	}
	l.want(t, 0, 1, "--notify-url", notify, "upgrade", "run", "-y")
	list := strings.Fields(l.want(t, 0, 0, "upgrade", "logs"))
	dbDir := filepath.Dir(strings.TrimPrefix(envOf(l.env, "KUPGRADE_DB"), "sqlite:"))
	if len(list) != 3 || !strings.HasPrefix(list[0], filepath.Join(dbDir, "runs", "clusters", l.f.Clusters[0].Name)+string(filepath.Separator)) {
		t.Fatalf("upgrade logs lists %v, want the 3 runs (start's included) beside the database %s", list, dbDir)
	}
	if first, err := os.ReadFile(list[0]); err != nil || !strings.Contains(string(first), " upgrade start v1.30.1\n") {
		t.Errorf("the first log is not upgrade start's (%v):\n%s", err, first)
	}
	last := l.want(t, 0, 0, "upgrade", "logs", "--last")
	for _, want := range []string{"# command:  kupgrade -i ", "--notify-url " + hook.srv.URL + " upgrade run -y",
		"# cluster:  " + l.f.Clusters[0].Name + " (upgrade ", "# database: sqlite:", "# user:", "# version:  kupgrade ",
		"# notify:   " + hook.srv.URL + "\n", "kubeadm upgrade node", "# outcome: failed: ", "# retry:   kupgrade host upgrade worker-0 kubelet"} {
		if !strings.Contains(last, want) {
			t.Errorf("the newest run log lacks %q:\n%s", want, last)
		}
	}
	if strings.Contains(last, "SECRETTOKEN") {
		t.Errorf("the run log holds the webhook's token:\n%s", last)
	}
	l.want(t, 0, 0, "upgrade", "run", "-y")
	l.want(t, 0, 0, "upgrade", "delete", "-y")
	if _, err := os.Stat(filepath.Dir(list[0])); !os.IsNotExist(err) {
		t.Errorf("the upgrade's run logs are left after upgrade delete (%v)", err)
	}
}

// envOf is the value of name in env.
func envOf(env []string, name string) string {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, name+"="); ok {
			return v
		}
	}
	return ""
}
