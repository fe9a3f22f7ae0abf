package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/crypto/ssh"

	"github.com/kupgrade/kupgrade/inventory"
)

// fleet starts n servers in a folder of their own and writes the inventory, known_hosts and
// ansible.cfg for them. stop ends the servers.
func fleet(ctx context.Context, w *workspace, n int, clientPub ssh.PublicKey) (hosts []*inventory.Host, stop func(), err error) {
	dir := filepath.Join(w.Dir, fmt.Sprintf("n%d", n))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("create %s: %w", dir, err)
	}
	servers, err := startFleet(ctx, dir, n, clientPub)
	if err != nil {
		return nil, nil, err
	}
	stop = func() { stopFleet(servers) }
	targets := make([]target, n)
	for i, s := range servers {
		targets[i] = target{Name: s.Name, Port: s.Port, HostKey: s.HostKey}
	}
	if err := w.writeHosts(targets, currentUser()); err != nil {
		stop()
		return nil, nil, err
	}
	inv, err := inventory.Load(w.Inventory)
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("load the benchmark inventory: %w", err)
	}
	return inv.Hosts, stop, nil
}

// measureN runs every tool against n fresh servers, back to back: the Go clients o.runs times
// each, interleaved so drift hits them alike, then ansible-playbook once.
func measureN(ctx context.Context, o options, w *workspace, n int, clientPub ssh.PublicKey, log io.Writer) ([]row, error) {
	hosts, stop, err := fleet(ctx, w, n, clientPub)
	if err != nil {
		return nil, err
	}
	defer stop()
	payload, err := os.ReadFile(w.Payload)
	if err != nil {
		return nil, fmt.Errorf("read payload: %w", err)
	}
	clients := []struct {
		tool string
		run  func() measure
	}{
		{toolBound, func() measure { return runBound(ctx, w, hosts, payload) }},
		{toolKupgrade, func() measure { return runKupgrade(ctx, o.kupgrade, w, n) }},
		{toolBare, func() measure { return runBare(ctx, w, hosts, payload) }},
	}
	runs := map[string][]measure{}
	for i := range o.runs {
		for _, c := range clients {
			if err := w.freshDest(); err != nil {
				return nil, err
			}
			m := c.run()
			report(log, n, c.tool, i+1, m)
			runs[c.tool] = append(runs[c.tool], m)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
	}
	var rows []row
	if slices.Contains(o.ansibleNs, n) {
		if err := w.freshDest(); err != nil {
			return nil, err
		}
		m := runAnsible(ctx, w, n)
		report(log, n, toolAnsible, 1, m)
		rows = append(rows, summarize(n, toolAnsible, []measure{m}))
	}
	for _, c := range clients {
		rows = append(rows, summarize(n, c.tool, runs[c.tool]))
	}
	return rows, ctx.Err()
}

func report(log io.Writer, n int, tool string, i int, m measure) {
	status := "ok"
	if m.Err != nil {
		status = "FAILED"
	}
	fmt.Fprintf(log, "N=%d %s run %d: %.2f s wall, %.2f s CPU, %s\n", n, tool, i, m.Wall.Seconds(), m.CPU.Seconds(), status)
}

// sftpOnce measures the 64 MiB upload against one fresh server.
func sftpOnce(ctx context.Context, w *workspace, clientPub ssh.PublicKey) ([]transfer, error) {
	hosts, stop, err := fleet(ctx, w, 1, clientPub)
	if err != nil {
		return nil, err
	}
	defer stop()
	if err := w.freshDest(); err != nil {
		return nil, err
	}
	return measureSFTP(ctx, w, hosts[0]), nil
}
