package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kupgrade/kupgrade/integration/lab"
)

type galeraCmd struct {
	Up    galeraUpCmd    `cmd:"" help:"Start a 3-node MariaDB Galera cluster; print kupgrade's DSN naming every node and write it to --dir/galera.dsn."`
	Down  galeraDownCmd  `cmd:"" help:"Remove the cluster started by galera up."`
	Stop  galeraStopCmd  `cmd:"" help:"Kill one node (1, 2 or 3), as a crash would."`
	Start galeraStartCmd `cmd:"" help:"Start a stopped node again; returns once it has rejoined and synced."`
}

const (
	galeraDSNFile   = "galera.dsn"
	galeraStateFile = "galera.json"
)

type galeraUpCmd struct{}

func (galeraUpCmd) Run(ctx context.Context, c *cli) error {
	if _, err := os.Stat(filepath.Join(c.Dir, galeraStateFile)); err == nil {
		return fmt.Errorf("a Galera cluster already runs for %s: run kupgrade-lab galera down --dir %s first", c.Dir, c.Dir)
	}
	g, err := lab.UpGalera(ctx, 0, os.Stderr)
	if err != nil {
		return err
	}
	st, err := json.Marshal(g.State())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	// Both hold the password: readable by their owner only.
	if err := os.WriteFile(filepath.Join(c.Dir, galeraStateFile), st, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, galeraDSNFile), []byte(g.URL()+"\n"), 0o600); err != nil {
		return err
	}
	fmt.Println(g.URL())
	return nil
}

// attach finds the cluster of --dir; nil when there is none.
func attach(ctx context.Context, c *cli) (*lab.Galera, error) {
	data, err := os.ReadFile(filepath.Join(c.Dir, galeraStateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st lab.GaleraState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(c.Dir, galeraStateFile), err)
	}
	return lab.AttachGalera(ctx, st)
}

type galeraDownCmd struct{}

func (galeraDownCmd) Run(ctx context.Context, c *cli) error {
	data, err := os.ReadFile(filepath.Join(c.Dir, galeraStateFile))
	if errors.Is(err, os.ErrNotExist) {
		fmt.Printf("no Galera cluster in %s\n", c.Dir)
		return nil
	}
	if err != nil {
		return err
	}
	var st lab.GaleraState
	if err := json.Unmarshal(data, &st); err != nil {
		return err
	}
	if err := lab.Remove(ctx, st.Name); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(c.Dir, galeraDSNFile))
	_ = os.Remove(filepath.Join(c.Dir, galeraStateFile))
	fmt.Printf("removed %s\n", st.Name)
	return nil
}

type galeraNodeCmd struct {
	Node int `arg:"" help:"The node: 1, 2 or 3."`
}

func (n galeraNodeCmd) node(ctx context.Context, c *cli) (*lab.MariaDB, error) {
	g, err := attach(ctx, c)
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, fmt.Errorf("no Galera cluster in %s: run kupgrade-lab galera up --dir %s first", c.Dir, c.Dir)
	}
	if n.Node < 1 || n.Node > len(g.Nodes) {
		return nil, fmt.Errorf("node %d: the cluster has nodes 1 to %d", n.Node, len(g.Nodes))
	}
	return g.Nodes[n.Node-1], nil
}

type galeraStopCmd struct{ galeraNodeCmd }

func (n galeraStopCmd) Run(ctx context.Context, c *cli) error {
	m, err := n.node(ctx, c)
	if err != nil {
		return err
	}
	return m.Stop(ctx)
}

type galeraStartCmd struct{ galeraNodeCmd }

func (n galeraStartCmd) Run(ctx context.Context, c *cli) error {
	m, err := n.node(ctx, c)
	if err != nil {
		return err
	}
	return m.Start(ctx)
}
