package runner

import (
	"github.com/kupgrade/kupgrade/modules"

	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/kupgrade/kupgrade/inventory"
)

// Options configure a Runner.
type Options struct {
	Forks    int      // hosts worked on at the same time; default 50
	Reporter Reporter // nil discards events
	// Modules are the modules tasks name: modules.Builtins() when nil; a caller adds its own
	// (kubeadm's kubelet_config) to the registry it passes.
	Modules *modules.Registry
}

// Runner runs playbooks. It keeps one Conn per host, reused by every task of every Play, and
// redials a host whose connection broke. It is safe for concurrent use.
type Runner struct {
	dialer Dialer
	forks  int
	rep    Reporter
	repMu  sync.Mutex
	mods   *modules.Registry

	mu    sync.Mutex
	conns map[string]*pooled
}

type pooled struct {
	ready chan struct{} // closed when the dial is over
	conn  Conn
	err   error
}

// New returns a Runner that dials hosts with d.
func New(d Dialer, opts Options) *Runner {
	if opts.Forks <= 0 {
		opts.Forks = 50
	}
	if opts.Reporter == nil {
		opts.Reporter = discard{}
	}
	if opts.Modules == nil {
		opts.Modules = modules.Builtins()
	}
	return &Runner{dialer: d, forks: opts.Forks, rep: opts.Reporter, mods: opts.Modules, conns: map[string]*pooled{}}
}

func (r *Runner) report(e Event) {
	r.repMu.Lock()
	defer r.repMu.Unlock()
	r.rep.Report(e)
}

// Conn returns the pooled connection to h, dialing it when there is none (or the last one
// broke). Concurrent callers for one host share one dial. A dial error is an *UnreachableError.
func (r *Runner) Conn(ctx context.Context, h *inventory.Host) (Conn, error) {
	return r.conn(ctx, h, h.Name)
}

// conn is Conn with the pool's key: the host's name, or its name and a remote_user.
func (r *Runner) conn(ctx context.Context, h *inventory.Host, key string) (Conn, error) {
	r.mu.Lock()
	p, ok := r.conns[key]
	if !ok {
		p = &pooled{ready: make(chan struct{})}
		r.conns[key] = p
		r.mu.Unlock()
		p.conn, p.err = r.dialer.Dial(ctx, h)
		if p.err != nil {
			p.err = &UnreachableError{Host: h.Name, Err: dialError(h, p.err)}
			r.mu.Lock()
			delete(r.conns, key) // the next call dials again
			r.mu.Unlock()
		}
		close(p.ready)
		return p.conn, p.err
	}
	r.mu.Unlock()
	select {
	case <-p.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return p.conn, p.err
}

// drop closes c and forgets it if it is still the pooled connection of host.
func (r *Runner) drop(host string, c Conn) {
	r.mu.Lock()
	p, ok := r.conns[host]
	if ok && p.conn == c {
		delete(r.conns, host)
	}
	r.mu.Unlock()
	if ok && p.conn == c {
		_ = c.Close()
	}
}

// Close closes every pooled connection.
func (r *Runner) Close() error {
	r.mu.Lock()
	conns := r.conns
	r.conns = map[string]*pooled{}
	r.mu.Unlock()
	var errs []error
	for name, p := range conns {
		<-p.ready
		if p.conn != nil {
			if err := p.conn.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close %s: %w", name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// dialError adds the address to a dial error that does not say it already (an SSH error names
// the host and its address; a test double's may not).
func dialError(h *inventory.Host, err error) error {
	if strings.Contains(err.Error(), h.Address()) {
		return err
	}
	return fmt.Errorf("dial %s: %w", h.Address(), err)
}
