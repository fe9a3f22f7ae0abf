package sim

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"mvdan.cc/sh/v3/interp"
)

// SudoPasswordFile, when it exists on a host, makes its sudo ask for a password, as a sudoers
// rule without NOPASSWD does: `sudo -n` refuses and exits 1, before the command runs.
const SudoPasswordFile = "/etc/kupgrade-lab/sudo-password"

// RequireSudoPassword makes h's sudo ask for a password (on), or not (off).
func (h *Host) RequireSudoPassword(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !on {
		h.disk.removeAll(SudoPasswordFile)
		return
	}
	now := time.Now()
	h.disk.mkdirAll("/etc/kupgrade-lab", now)
	h.disk.write(SudoPasswordFile, nil, now)
}

// sudo runs the command as root (every simulated command runs as root), unless the host asks for
// a password: then `sudo -n` says so, as sudo does, and runs nothing.
func (h *Host) sudo(ctx context.Context, hc interp.HandlerContext, args []string) int {
	nonInteractive := false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		nonInteractive = nonInteractive || a == "-n"
		if a == "-u" && len(args) > 0 {
			args = args[1:]
		}
	}
	if _, ask := h.File(SudoPasswordFile); ask {
		if nonInteractive {
			fmt.Fprintln(hc.Stderr, "sudo: a password is required")
		} else {
			fmt.Fprintln(hc.Stderr, "sudo: a terminal is required to read the password; either use the -S option to read from standard input or configure an askpass helper")
		}
		return 1
	}
	return h.call(ctx, hc, args, nil)
}

// SetUnreachable makes h unreachable (on), as a host that is down or cut off: a new SSH
// connection to it is cut during its handshake; or reachable again (off). Connections already
// open are left alone (each kupgrade command opens its own).
func (h *Host) SetUnreachable(on bool) { h.unreachable.Store(on) }

// cut closes the connection from addr, during its handshake.
func (f *Fleet) cut(addr net.Addr) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for nc := range f.open {
		if nc.RemoteAddr().String() == addr.String() {
			nc.Close()
		}
	}
}
