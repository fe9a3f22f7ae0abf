package sim

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/internal/fencefile"
	"mvdan.cc/sh/v3/interp"
)

// fenceScriptStart begins the runner's host-fence script (runner.Fence): its parameters are
// fencefile.ScriptParams, then the command.
const fenceScriptStart = fencefile.ScriptParams

// fenceCall is one fenced command's parameters.
type fenceCall struct {
	dir, wait, cluster, key, owner, label string
	gen, claim                            int64
	cmd                                   []string
}

func parseFenceCall(p []string) (fenceCall, error) {
	if len(p) < 9 {
		return fenceCall{}, errors.New("bad arguments")
	}
	gen, errG := strconv.ParseInt(p[4], 10, 64)
	claim, errC := strconv.ParseInt(p[6], 10, 64)
	if errG != nil || errC != nil {
		return fenceCall{}, errors.New("bad generation or claim")
	}
	return fenceCall{dir: p[0], wait: p[1], cluster: p[2], key: p[3], gen: gen, owner: p[5], claim: claim, label: p[7], cmd: p[8:]}, nil
}

// fenced runs the host fence natively, with the script's semantics: the lock held for the life
// of the command, the wait, the stamp, the refusal of a damaged stamp, of an older generation of
// the same key, of another cluster's command on a host a live operation holds and of another
// upgrade of the same cluster that another database records (otherUpgrade). The
// generation announcements are not simulated: the simulated fleet's runners never wait behind
// one another's older generation.
func (h *Host) fenced(ctx context.Context, hc interp.HandlerContext, p []string) int {
	c, err := parseFenceCall(p)
	if err != nil {
		fmt.Fprintln(hc.Stderr, "kupgrade fence: "+err.Error())
		return 75
	}
	h.mu.Lock()
	h.disk.mkdirAll(c.dir, time.Now())
	if _, ok := h.disk[c.dir+"/"+fencefile.LockFile]; !ok {
		h.disk.write(c.dir+"/"+fencefile.LockFile, nil, time.Now())
	}
	h.mu.Unlock()
	waited := !h.lockFence(ctx, 0)
	if waited && !h.lockFence(ctx, time.Duration(must(strconv.ParseFloat(c.wait, 64))*float64(time.Second))) {
		st, _ := h.stamp(c.dir)
		fmt.Fprintf(hc.Stderr, "kupgrade fence: another kupgrade command is still running on this host (%s); waited %ss for it to end: wait for it, then retry\n", held(st), c.wait)
		return 75
	}
	defer func() { <-h.fence }()
	if msg := h.refusal(c, waited); msg != "" {
		fmt.Fprintln(hc.Stderr, "kupgrade fence: "+msg)
		return 75
	}
	since := time.Now().UTC().Truncate(time.Second)
	h.putStamp(c, since)
	defer h.putStamp(c, since)
	if len(c.cmd) >= 2 && c.cmd[0] == "sh" {
		return h.shell(ctx, hc, c.cmd[1:], nil)
	}
	return h.call(ctx, hc, c.cmd, nil)
}

func must(f float64, _ error) float64 { return f }

// refusal is why the fence refuses c holding the lock ("" when it does not): the script's.
func (h *Host) refusal(c fenceCall, waited bool) string {
	st, err := h.stamp(c.dir)
	switch {
	case err != nil:
		return fmt.Sprintf("%s/%s cannot be read (empty, torn or edited by hand): no command runs on its word; once no kupgrade command runs on this host (flock -n %s/%s true succeeds), remove %s/%s and retry",
			c.dir, fencefile.StampFile, c.dir, fencefile.LockFile, c.dir, fencefile.StampFile)
	case st.Key == c.key && st.Generation > c.gen:
		return fmt.Sprintf("a newer operation (generation %d, owner %s) owns this host: this kupgrade (generation %d, owner %s) lost its lease and must not start new work", st.Generation, st.Owner, c.gen, c.owner)
	case st.Cluster != "" && st.Cluster != "-" && (waited || time.Now().Before(st.Until)):
		return otherUpgrade(c, st)
	}
	return ""
}

// otherUpgrade is the script's fence_other: why a live stamp refuses c, "" when it does not.
func otherUpgrade(c fenceCall, st fencefile.Stamp) string {
	cn, cu := fencefile.SplitCluster(c.cluster)
	sn, su := fencefile.SplitCluster(st.Cluster)
	_, od := fencefile.SplitOwner(c.owner)
	sr, sd := fencefile.SplitOwner(st.Owner)
	same := cn == sn
	if cu != "" && su != "" {
		same = cu == su
	}
	switch {
	case !same:
		return fmt.Sprintf("this host belongs to a live upgrade of cluster %s%s (%s): a command of cluster %s%s must not run on it; check that the inventory (-i) and --cluster name the same cluster",
			sn, uidNote(su), held(st), cn, uidNote(cu))
	case st.Key == c.key, od != "" && sd == od && sn == cn:
		return ""
	}
	return fmt.Sprintf("one cluster, one upgrade: cluster %s%s has a live upgrade, %s (as %s), run by %s with the database %s, whose command (%s) ran here since %s; this kupgrade (%s with the database %s) must not run beside it: finish or abort that upgrade with its database (--db), or wait until its claim passes (a lease TTL after its last command here)",
		cn, uidNote(cu), st.Key, sn, sr, orElse(sd, "unknown (an older kupgrade)"), st.Label, st.Since.Format(time.RFC3339), strings.SplitN(c.owner, fencefile.IdentitySep, 2)[0], orElse(od, "unknown"))
}

func uidNote(uid string) string {
	if uid == "" {
		return ""
	}
	return " (kube-system uid " + uid + ")"
}

func orElse(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

func held(st fencefile.Stamp) string {
	return fmt.Sprintf("cluster %s, generation %d, owner %s, since %s: %s", st.Cluster, st.Generation, st.Owner, st.Since.Format(time.RFC3339), st.Label)
}

// stamp reads the host's stamp: a zero Stamp when there is none, an error when it is damaged.
func (h *Host) stamp(dir string) (fencefile.Stamp, error) {
	s, ok := h.File(dir + "/" + fencefile.StampFile)
	if !ok {
		return fencefile.Stamp{}, nil
	}
	if !strings.HasSuffix(s, "\n") {
		return fencefile.Stamp{}, fencefile.ErrDamaged
	}
	return fencefile.Parse(s)
}

func (h *Host) putStamp(c fenceCall, since time.Time) {
	st := fencefile.Stamp{Cluster: c.cluster, Key: c.key, Generation: c.gen, Owner: c.owner, Since: since,
		Until: time.Now().Add(time.Duration(c.claim) * time.Second), Label: c.label}
	h.mu.Lock()
	h.disk.write(c.dir+"/"+fencefile.StampFile, []byte(st.Line()), time.Now())
	h.mu.Unlock()
}

// lockFence takes the fence's lock, waiting up to wait.
func (h *Host) lockFence(ctx context.Context, wait time.Duration) bool {
	select {
	case h.fence <- struct{}{}:
		return true
	default:
	}
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case h.fence <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// flock is `flock -n [-E CODE] FILE COMMAND...` (the probe asks whether the fence is busy, or
// reads kubeadm under it) and `flock [-w N] FILE COMMAND...`: the host's one lock file is the
// fence's. A lock not had exits 1, or CODE with -E, as flock(1).
func (h *Host) flock(ctx context.Context, hc interp.HandlerContext, args []string) int {
	wait, busy := time.Duration(-1), 1
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-n":
			wait = 0
		case "-w":
			s, _ := strconv.ParseFloat(args[1], 64)
			wait, args = time.Duration(s*float64(time.Second)), args[1:]
		case "-E":
			busy, _ = strconv.Atoi(args[1])
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(hc.Stderr, "flock: want FILE COMMAND")
		return 64
	}
	if wait < 0 {
		wait = 24 * time.Hour
	}
	if !h.lockFence(ctx, wait) {
		return busy
	}
	defer func() { <-h.fence }()
	return h.call(ctx, hc, args[1:], nil)
}
