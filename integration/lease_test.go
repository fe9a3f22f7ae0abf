//go:build integration

package integration_test

import (
	"bytes"
	"database/sql"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// TestOneOperationAtATime holds the second controller's control-plane step in a hanging kubeadm
// and checks that nothing else starts an operation on the cluster meanwhile: first two
// `host upgrade` commands started together, then a kupgrade killed with SIGKILL whose lease
// outlives it. (What watch does after the SIGKILL is TestWatchFailsKilledUpgradeAndRetrySucceeds;
// here it is recover.)
func TestOneOperationAtATime(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 2})
	// Long enough that the refused commands below surely run under the dead process's lease.
	const ttl = 10 * time.Second
	u.k.env = append(u.k.env, "KUPGRADE_LEASE_TTL="+ttl.String())
	u.begin(t, "v1.30.1", "upgraded-first-master")
	c1 := u.lab.Node("controller-1")

	ok := t.Run("two host upgrades at once", func(t *testing.T) {
		injectFault(t, c1, lab.Fault{Phase: "control-plane", Action: lab.Hang, Once: true})
		args := []string{"--kubeadm-timeout", "5s", "host", "upgrade", "controller-1", "control-plane"}
		cmds := make([]*exec.Cmd, 2)
		outs := make([]*bytes.Buffer, 2)
		for i := range cmds {
			cmds[i], outs[i] = u.k.cmd(t.Context(), args...)
		}
		for _, c := range cmds {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		codes := make([]int, 2)
		for i, c := range cmds {
			err := c.Wait()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			codes[i] = c.ProcessState.ExitCode()
		}
		slices.Sort(codes)
		// One ran (and failed on the hang, exit 1); the other found it running: conflict.
		if !slices.Equal(codes, []int{1, 4}) {
			t.Errorf("exit statuses %v, want one 1 (ran, hung, timed out) and one 4 (conflict):\n%s\n---\n%s", codes, outs[0], outs[1])
		}
		if n := countRows(t, u.db, `SELECT COUNT(*) FROM kube_upgrade_event WHERE to_state = ?`, "upgrading-second-master"); n != 1 {
			t.Errorf("%d events started upgrading-second-master, want exactly 1", n)
		}
		if got := u.k.show(t).State; got != "upgrading-second-master-failed" {
			t.Errorf("state %s, want upgrading-second-master-failed", got)
		}
		requireNoKubeadm(t, c1)
	})
	if !ok {
		return
	}

	t.Run("SIGKILL mid kubeadm upgrade node", func(t *testing.T) {
		injectFault(t, c1, lab.Fault{Phase: "control-plane", Action: lab.Hang, Once: true})
		up, upOut := u.k.cmd(t.Context(), "host", "upgrade", "controller-1", "control-plane")
		if err := up.Start(); err != nil {
			t.Fatal(err)
		}
		waitForHang(t, c1, upOut)
		if err := up.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		up.Wait()

		show := u.k.show(t)
		if show.State != "upgrading-second-master" || show.Lease == nil || !strings.Contains(show.Lease.Operation, "controller-1") {
			t.Fatalf("after SIGKILL: state %s, lease %+v; want upgrading-second-master under the dead process's lease", show.State, show.Lease)
		}
		if st := u.k.hostStatus(t, "controller-1"); st != "upgrading-control-plane" {
			t.Errorf("controller-1 status %q under the live lease, want upgrading-control-plane", st)
		}
		before := dbImage(t, u.db)
		for _, args := range [][]string{
			{"host", "upgrade", "controller-1", "control-plane"},
			{"upgrade", "networking"},
			{"recover"},
		} {
			if code, out := u.k.exit(t, args...); code != 4 {
				t.Errorf("kupgrade %s under a live lease exited %d, want 4 (conflict):\n%s", strings.Join(args, " "), code, out)
			}
		}
		if time.Now().After(show.Lease.ExpiresAt) {
			t.Fatalf("the lease (TTL %s) expired before the refused commands were done: the checks above did not run under it", ttl)
		}
		if after := dbImage(t, u.db); after != before {
			t.Errorf("a refused command wrote to the database:\nbefore %s\nafter  %s", before, after)
		}
		requireNoKubeadm(t, c1)

		// Past the lease's expiry the operation is orphaned: recover fails it through the one path.
		// (upgrade show prints expires_at in whole seconds, hence the second added.)
		time.Sleep(time.Until(show.Lease.ExpiresAt) + 1200*time.Millisecond)
		u.k.wantExit(t, 0, "recover")
		if got := u.k.show(t); got.State != "upgrading-second-master-failed" || got.Lease != nil {
			t.Errorf("after recover: state %s, lease %+v; want upgrading-second-master-failed, no lease", got.State, got.Lease)
		}
		if st := u.k.hostStatus(t, "controller-1"); st != "" {
			t.Errorf("controller-1 status %q after recover, want NULL", st)
		}
		if ev := newestFailure(t, u.db); ev.Actor != "recover" || ev.FromHostStatus != "upgrading-control-plane" {
			t.Errorf("newest event by %s clearing %q, want recover clearing upgrading-control-plane", ev.Actor, ev.FromHostStatus)
		}
		u.k.wantExit(t, 0, "host", "upgrade", "controller-1", "control-plane")
		if got := u.k.show(t).State; got != "upgraded-second-master" {
			t.Errorf("after the retry the state is %s, want upgraded-second-master", got)
		}
	})
}

// waitForHang waits until the one-shot hang fault on n has fired (kubeadm removed it) and
// kubeadm runs: kupgrade is then in the middle of kubeadm upgrade node.
func waitForHang(t *testing.T, n *lab.Node, out interface{ String() string }) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		_, noFault := n.Exec(t.Context(), "test", "!", "-e", lab.FaultFile)
		_, running := n.Exec(t.Context(), "pgrep", "-f", "kubeadm upgrade")
		if noFault == nil && running == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubeadm never reached the hang on %s; kupgrade said:\n%s", n.Name, out)
		}
	}
}

// dbImage is every row an operator would look at, as one string: the upgrade, the hosts, the
// lease and the number of events.
func dbImage(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT state || '|' || state_entered_at || '|' || updated_at || '|' || recovery_attempts FROM kube_upgrade`,
		`SELECT hostname || '|' || COALESCE(target_version, '') || '|' || COALESCE(status, '') || '|' || u.updated_at
			FROM kube_host_upgrade u JOIN host h ON h.id = u.host_id ORDER BY hostname`,
		`SELECT owner || '|' || heartbeat_at || '|' || expires_at FROM upgrade_lease`,
		`SELECT COUNT(*) FROM kube_upgrade_event`,
	} {
		rows, err := db.QueryContext(t.Context(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			b.WriteString(s + "; ")
		}
		rows.Close()
	}
	return b.String()
}
