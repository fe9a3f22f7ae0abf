package contract

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/kupgrade/kupgrade/internal/shellword"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner/sshconn"
)

// Result is how a command ended and what it printed (its stdout, then its stderr).
type Result struct {
	End    string
	Status int
	Output string
}

// RunSSH runs cmd as root (sudo -n sh -c) on host of the inventory through kupgrade's own SSH
// client, on a connection of its own. A command that ctx cancelled ends Cancelled.
func RunSSH(ctx context.Context, inv, host, cmd string) (Result, error) {
	i, err := inventory.Load(inv)
	if err != nil {
		return Result{}, err
	}
	h, ok := i.Host(host)
	if !ok {
		return Result{}, fmt.Errorf("no host %s in %s", host, inv)
	}
	d := &sshconn.Dialer{KnownHosts: i.KnownHosts(), SSHConfig: sshconn.NoSSHConfig}
	c, err := d.Dial(ctx, h)
	if err != nil {
		return Result{}, err
	}
	defer c.Close()
	var out, errb bytes.Buffer
	status, err := c.Run(ctx, "sudo -n sh -c "+shellword.Quote(cmd), nil, &out, &errb)
	r := Result{Status: status, Output: out.String() + "\n" + errb.String()}
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		r.End = Cancelled
	case sshconn.IsClass(err, sshconn.Closed):
		r.End = Lost
	default:
		return r, fmt.Errorf("run %q: %w\n%s", cmd, err, r.Output)
	}
	return r, nil
}
