package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
)

// PlayOptions are the per-run choices of `kupgrade play`.
type PlayOptions struct {
	Limit string
	// Hosts, when set, limits the play to these inventory hosts, named exactly (no pattern: a
	// name may hold ':' or ',', as an IPv6 literal does). Both Limit and Hosts apply when set.
	Hosts []string
	Check bool
	// Diff is --diff: file-changing modules return what they change (before and after), and the
	// text output prints it as a unified diff; a task's diff keyword overrides it.
	Diff      bool
	Tags      []string
	SkipTags  []string
	ExtraVars map[string]any
	// Gate, when set, is asked before each task starts on a host, before each retry attempt
	// (until/retries) and before each loop item, and may make it wait: an error fails that task
	// without starting the work (and the host, as any failure does; ErrGateClosed: final, no
	// ignore_errors). A command already running is never interrupted by it: the caller's lease keeper closes the gate when it can no longer vouch
	// for its lease, so no new work starts while the work in progress runs to its end.
	Gate func(ctx context.Context) error
	// Fence, when set, guards every command and shell task that runs as root on a host: see
	// Fence. The caller gives it the token of the lease under which it runs the play.
	Fence *Fence
}

// playExec is one Play call.
type playExec struct {
	r     *Runner
	pb    *playbooks.Playbook
	inv   *inventory.Inventory
	po    PlayOptions
	dir   string
	recap *Recap
	order []string        // hosts in the order first seen, for Failures
	dead  map[string]bool // failed or unreachable in an earlier play: not run again
	stop  bool            // any_errors_fatal, max_fail_percentage or end_play ended the play
	jobs  chan func()     // the play's workers (startWorkers)

	endBatch bool // meta: end_batch
	// over ends the playbook after this play, as Ansible's break_play: a batch whose hosts all
	// failed, any_errors_fatal or max_fail_percentage.
	over bool
	// fatal, once set (abort), ends the playbook after the running task with this error, as
	// Ansible's ERROR! does: a changed task notified a handler the play does not have.
	fatal    error
	fatalMu  sync.Mutex
	handlers []*ctask                // the play's, for meta: flush_handlers
	included map[includeKey][]*ctask // files read by include_tasks as the play ran
	includes []string                // the includes running now, file:line of each (MaxIncludeDepth)
	// mayIgnoreUnreachable: some task of the play has ignore_unreachable, so a host that cannot
	// be dialled stays in the play.
	mayIgnoreUnreachable bool
	play                 *playbooks.Play
	// varsFiles are the vars_files read, by path, once per Play call.
	varsFiles map[string]map[string]any
	// kept holds, per host, the facts and registered results of earlier plays.
	kept map[string]map[string]any
	// states are the play's hosts by name; hostvars and groupsVar the maps templates read as
	// hostvars and groups (buildVars).
	states              map[string]*hostState
	hostvars, groupsVar map[string]any
	dyn                 dynState
}

// Play runs every play of pb. The returned error is non-nil when the playbook could not run
// (an error of class fault.ErrBadInput: a bad --limit or serial) or when a host failed or was
// unreachable (the same errors as Recap.Err); it also wraps the context's error when ctx was
// cancelled. The recap is returned in every case.
func (r *Runner) Play(ctx context.Context, pb *playbooks.Playbook, inv *inventory.Inventory, po PlayOptions) (*Recap, error) {
	e := &playExec{r: r, pb: pb, inv: inv, po: po, dir: filepath.Dir(pb.File), recap: newRecap(), dead: map[string]bool{},
		varsFiles: map[string]map[string]any{}, kept: map[string]map[string]any{}}
	var err error
	for _, p := range pb.Plays {
		if err = e.runPlay(ctx, p); err != nil || ctx.Err() != nil || e.over {
			break
		}
	}
	r.report(Event{Event: EventPlayRecap, Recap: shownRecap(e.recap.Hosts)})
	return e.recap, errors.Join(err, e.recap.Err(), ctx.Err())
}

func (e *playExec) runPlay(ctx context.Context, p *playbooks.Play) error {
	hosts, err := e.selectHosts(p)
	if err != nil {
		return err
	}
	top := inherited{mods: e.r.mods, become: p.Become, becomeUser: p.BecomeUser, env: p.Environment,
		tags: p.Tags, remoteUser: p.RemoteUser, connection: p.Connection, ignoreUnr: p.IgnoreUnreachable,
		noLog: p.NoLog, ignore: p.IgnoreErrors, checkMode: p.CheckMode, diff: p.Diff, dyn: p.Templated}
	tasks := compileTasks(p.Tasks, top)
	handlers := compileTasks(p.Handlers, top)
	e.handlers, e.included, e.play = handlers, map[includeKey][]*ctask{}, p
	e.mayIgnoreUnreachable = anyIgnoresUnreachable(tasks)
	renameTasks(tasks, p, e.po.ExtraVars)
	renameTasks(handlers, p, e.po.ExtraVars)
	var states []*hostState
	for _, h := range hosts {
		if e.dead[h.Name] {
			continue
		}
		states = append(states, e.newHost(h))
	}
	e.states = make(map[string]*hostState, len(states))
	for _, h := range states {
		e.states[h.name] = h
	}
	name := displayName(p.Name, p, e.po.ExtraVars)
	perHost := countTasks(tasks)
	if p.GatherFacts {
		perHost++ // its results are counted like a task's
	}
	e.r.report(Event{Event: EventPlayStart, Msg: name, Data: map[string]any{
		"play": name, "hosts": len(states), "host_tasks": len(states) * perHost}})
	if len(states) == 0 {
		return nil // Ansible's "skipping: no hosts matched" (--limit, or every host failed before): the next play runs
	}
	if err := e.buildVars(p, states); err != nil {
		return fault.Mark(err, fault.ErrBadInput)
	}
	defer e.startWorkers(len(states))()
	e.dialAll(ctx, states)
	if p.GatherFacts {
		e.step(ctx, states, e.factsTask())
	}
	serial, err := serialSizes(p.Serial, states)
	if err != nil {
		return fault.Mark(err, fault.ErrBadInput)
	}
	batches, err := serialBatches(states, serial)
	if err != nil {
		return err
	}
	e.stop = false
	for _, batch := range batches {
		if e.stop || ctx.Err() != nil {
			break
		}
		e.endBatch = false
		setBatch(batch)
		e.runList(ctx, batch, tasks, p)
		if !e.stop && ctx.Err() == nil {
			e.runHandlers(ctx, batch, handlers)
		}
		if len(active(batch)) == 0 && !anyEnded(batch) {
			e.stop, e.over = true, true
		}
	}
	for _, h := range states {
		e.keep(h)
		if h.failed {
			e.dead[h.name] = true
			if !h.unreachable && !h.quiet {
				h.recap.Failed++
			}
			if h.err != nil {
				e.recap.Failures = append(e.recap.Failures, h.err)
			}
		}
	}
	return e.fatal
}

func (e *playExec) selectHosts(p *playbooks.Play) ([]*inventory.Host, error) {
	hosts, err := e.inv.Select(p.Hosts)
	if err != nil && slices.Contains(localNames, p.Hosts) {
		// Ansible's implicit localhost: named by a play, absent from the inventory, run locally.
		hosts, err = []*inventory.Host{{Name: p.Hosts, Vars: map[string]any{"ansible_connection": "local"}}}, nil
	}
	if err != nil {
		return nil, fault.Mark(fmt.Errorf("play %q: hosts: %w", p.Name, err), fault.ErrBadInput)
	}
	if e.po.Hosts != nil {
		hosts = slices.DeleteFunc(hosts, func(h *inventory.Host) bool { return !slices.Contains(e.po.Hosts, h.Name) })
	}
	if e.po.Limit == "" || e.po.Limit == "all" {
		return hosts, nil
	}
	limit, err := e.inv.Select(e.po.Limit)
	if err != nil {
		return nil, fault.Mark(fmt.Errorf("--limit: %w", err), fault.ErrBadInput)
	}
	return slices.DeleteFunc(hosts, func(h *inventory.Host) bool { return !slices.Contains(limit, h) }), nil
}

func (e *playExec) newHost(h *inventory.Host) *hostState {
	rc, ok := e.recap.Hosts[h.Name]
	if !ok {
		rc = &HostRecap{}
		e.recap.Hosts[h.Name] = rc
		e.recap.Registered[h.Name] = map[string]any{}
		e.order = append(e.order, h.Name)
	}
	return &hostState{host: h, name: h.Name, recap: rc, registered: e.recap.Registered[h.Name],
		facts: map[string]bool{}, notified: map[string]bool{}}
}

// dialAll dials the play's hosts concurrently (Forks at a time); the pool keeps the connections
// of earlier plays. A host that cannot be reached leaves the play.
func (e *playExec) dialAll(ctx context.Context, hosts []*hostState) {
	e.parallel(hosts, func(h *hostState) {
		user, err := e.remoteUser(h, e.play.RemoteUser)
		var c Conn
		key := h.name
		if err == nil {
			c, key, err = e.r.connFor(ctx, h.host, user, e.play.Connection)
		}
		if err != nil {
			if e.mayIgnoreUnreachable {
				return // each task dials again; one under ignore_unreachable goes on without it
			}
			e.unreachable(h, "", err)
			return
		}
		h.conn = &trackedConn{Conn: c, local: key == ""}
		if key != h.name {
			h.conn.key = key
		}
	})
}

// unreachable takes a host out of the play after a dial failure or a lost connection.
func (e *playExec) unreachable(h *hostState, task string, err error) {
	var u *UnreachableError
	if !errors.As(err, &u) {
		err = &UnreachableError{Host: h.name, Err: err}
	}
	h.failed, h.unreachable = true, true
	h.recap.Unreachable++
	h.err = &HostError{Host: h.name, Task: task, Err: err, Result: map[string]any{"msg": err.Error(), "unreachable": true}}
	e.r.report(Event{Event: EventHostUnreachable, Host: h.name, Task: task, Msg: err.Error()})
}

// parallel runs fn for every host on the play's workers (Forks of them at most) and returns
// when all are done.
func (e *playExec) parallel(hosts []*hostState, fn func(*hostState)) {
	e.parallelN(hosts, 0, fn)
}

// parallelN runs fn on the hosts, at most limit at once when limit > 0 (throttle), else as
// many as the forks.
func (e *playExec) parallelN(hosts []*hostState, limit int, fn func(*hostState)) {
	if limit > 0 && limit < len(hosts) {
		sem, inner := make(chan struct{}, limit), fn
		fn = func(h *hostState) {
			sem <- struct{}{}
			defer func() { <-sem }()
			inner(h)
		}
	}
	if len(hosts) == 1 {
		fn(hosts[0])
		return
	}
	var wg sync.WaitGroup
	wg.Add(len(hosts))
	for _, h := range hosts {
		e.jobs <- func() {
			defer wg.Done()
			fn(h)
		}
	}
	wg.Wait()
}

// startWorkers starts the goroutines that run hosts' tasks for one play. They live as long as
// the play, so their stacks, grown once by templating and the transport, are reused by every
// task instead of being grown again by a fresh goroutine per host and task.
func (e *playExec) startWorkers(n int) (stop func()) {
	n = max(1, min(n, e.r.forks))
	e.jobs = make(chan func())
	for range n {
		go func() {
			for job := range e.jobs {
				job()
			}
		}()
	}
	return func() { close(e.jobs) }
}

// serialBatches splits hosts by the play's serial sizes ("2", "30%"); the last size repeats.
func serialBatches(hosts []*hostState, serial []string) ([][]*hostState, error) {
	if len(serial) == 0 || len(hosts) == 0 {
		return [][]*hostState{hosts}, nil
	}
	var out [][]*hostState
	for i, rest := 0, hosts; len(rest) > 0; i++ {
		s := strings.TrimSpace(serial[min(i, len(serial)-1)])
		var n int
		if pct, ok := strings.CutSuffix(s, "%"); ok {
			f, err := strconv.ParseFloat(pct, 64)
			if err != nil || f <= 0 {
				return nil, fault.Mark(fmt.Errorf("serial: bad percentage %q", s), fault.ErrBadInput)
			}
			n = int(math.Floor(float64(len(hosts)) * f / 100))
		} else {
			v, err := strconv.Atoi(s)
			if err != nil || v < 0 {
				return nil, fault.Mark(fmt.Errorf("serial: bad batch size %q", s), fault.ErrBadInput)
			}
			n = v
		}
		if n <= 0 {
			n = len(rest) // 0 means all, and a percentage under one host still takes one
			if s != "0" {
				n = 1
			}
		}
		n = min(n, len(rest))
		out = append(out, rest[:n])
		rest = rest[n:]
	}
	return out, nil
}

func countTasks(ts []*ctask) int {
	n := 0
	for _, t := range ts {
		switch {
		case t.t.IsBlock():
			n += countTasks(t.block) + countTasks(t.always)
		case t.t.Meta == "":
			n++
		}
	}
	return n
}

// shownRecap leaves out the hosts nothing was counted for (a batch never reached, every task
// skipped by tags), as Ansible's PLAY RECAP lists only the hosts it processed. Recap.Hosts keeps
// them all.
func shownRecap(hosts map[string]*HostRecap) map[string]*HostRecap {
	out := make(map[string]*HostRecap, len(hosts))
	for name, rc := range hosts {
		if *rc != (HostRecap{}) {
			out[name] = rc
		}
	}
	return out
}

// setBatch sets ansible_play_batch, the hosts of the batch that runs, for each of them.
func setBatch(batch []*hostState) {
	names := make([]any, len(batch))
	for i, h := range batch {
		names[i] = h.name
	}
	for _, h := range batch {
		h.vars["ansible_play_batch"] = names
		h.pub["ansible_play_batch"] = names
	}
}

func anyEnded(hosts []*hostState) bool {
	return slices.ContainsFunc(hosts, func(h *hostState) bool { return h.ended })
}

func anyIgnoresUnreachable(ts []*ctask) bool {
	for _, t := range ts {
		if t.ignoreUnreachable || anyIgnoresUnreachable(t.block) || anyIgnoresUnreachable(t.rescue) ||
			anyIgnoresUnreachable(t.always) || anyIgnoresUnreachable(t.include) {
			return true
		}
	}
	return false
}
