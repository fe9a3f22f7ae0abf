package fleettest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/interp"
)

// fenceScriptStart begins the runner's host-fence script (runner.Fence): its arguments are the
// fence's folder, wait in seconds, key, generation, owner and label, then the command.
const fenceScriptStart = "d=$1 w=$2 k=$3 g=$4 o=$5 l=$6"

// fenced runs the host fence natively, with the script's semantics: the lock held for the life
// of the command, the wait, the stamp, and the refusal of an older generation of the same key.
func (h *Host) fenced(ctx context.Context, hc interp.HandlerContext, p []string) int {
	if len(p) < 7 {
		fmt.Fprintln(hc.Stderr, "kupgrade fence: bad arguments")
		return 75
	}
	dir, key, gen, owner, label, cmd := p[0], p[2], p[3], p[4], p[5], p[6:]
	wait, _ := strconv.ParseFloat(p[1], 64)
	h.mu.Lock()
	h.disk.mkdirAll(dir, time.Now())
	if _, ok := h.disk[dir+"/fence.lock"]; !ok {
		h.disk.write(dir+"/fence.lock", nil, time.Now())
	}
	h.mu.Unlock()
	if !h.lockFence(ctx, time.Duration(wait*float64(time.Second))) {
		sg, so, st, sl := h.stamp(dir)
		fmt.Fprintf(hc.Stderr, "kupgrade fence: another kupgrade command is still running on this host (generation %s, owner %s, since %s: %s); waited %ss for it to end: wait for it, then retry\n", sg, so, st, sl, p[1])
		return 75
	}
	defer func() { <-h.fence }()
	sk, sg := h.stampKey(dir)
	if g, err := strconv.ParseInt(gen, 10, 64); err == nil && sk == key && sg > g {
		_, so, _, _ := h.stamp(dir)
		fmt.Fprintf(hc.Stderr, "kupgrade fence: a newer operation (generation %d, owner %s) owns this host: this kupgrade (generation %s, owner %s) lost its lease and must not start new work\n", sg, so, gen, owner)
		return 75
	}
	h.mu.Lock()
	h.disk.write(dir+"/fence", fmt.Appendf(nil, "%s %s %s %s %s\n", key, gen, owner, time.Now().UTC().Format(time.RFC3339), label), time.Now())
	h.mu.Unlock()
	if len(cmd) >= 2 && cmd[0] == "sh" {
		return h.shell(ctx, hc, cmd[1:], nil)
	}
	return h.call(ctx, hc, cmd, nil)
}

// lockFence takes the fence's lock, waiting up to wait.
func (h *Host) lockFence(ctx context.Context, wait time.Duration) bool {
	select {
	case h.fence <- struct{}{}:
		return true
	default:
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

func (h *Host) stamp(dir string) (gen, owner, since, label string) {
	s, _ := h.File(dir + "/fence")
	f := strings.SplitN(strings.TrimSpace(s), " ", 5)
	for len(f) < 5 {
		f = append(f, "?")
	}
	return f[1], f[2], f[3], f[4]
}

func (h *Host) stampKey(dir string) (string, int64) {
	s, _ := h.File(dir + "/fence")
	f := strings.Fields(s)
	if len(f) < 2 {
		return "", 0
	}
	g, _ := strconv.ParseInt(f[1], 10, 64)
	return f[0], g
}

// flock is `flock -n FILE COMMAND...` (the probe asks whether the fence is busy) and
// `flock [-w N] FILE COMMAND...`: the host's one lock file is the fence's.
func (h *Host) flock(ctx context.Context, hc interp.HandlerContext, args []string) int {
	wait := time.Duration(-1)
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-n":
			wait = 0
		case "-w":
			if len(args) > 1 {
				s, _ := strconv.ParseFloat(args[1], 64)
				wait, args = time.Duration(s*float64(time.Second)), args[1:]
			}
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
		return 1
	}
	defer func() { <-h.fence }()
	return h.call(ctx, hc, args[1:], nil)
}
