package runnertest

import (
	"context"
	"sync"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner"
)

// LocalDialer dials LocalConns. Hosts named in Unreachable fail to dial with that error.
type LocalDialer struct {
	Dir         string   // working folder of every command
	Env         []string // added to the environment of every command (e.g. PATH with a fake sudo)
	Unreachable map[string]error

	mu    sync.Mutex
	dials map[string]int
}

// Dial returns a new LocalConn, or the host's error from Unreachable.
func (d *LocalDialer) Dial(ctx context.Context, h *inventory.Host) (runner.Conn, error) {
	d.mu.Lock()
	if d.dials == nil {
		d.dials = map[string]int{}
	}
	d.dials[h.Name]++
	d.mu.Unlock()
	if err := d.Unreachable[h.Name]; err != nil {
		return nil, err
	}
	return &LocalConn{Dir: d.Dir, Env: d.Env}, nil
}

// Dials says how often host was dialed.
func (d *LocalDialer) Dials(host string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dials[host]
}

// LocalConn is the runner's local connection, kept under this name for the tests that use it.
type LocalConn = runner.LocalConn
