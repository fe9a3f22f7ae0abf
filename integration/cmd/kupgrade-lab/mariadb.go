package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kupgrade/kupgrade/integration/lab"
)

type mariadbCmd struct {
	Up   mariadbUpCmd   `cmd:"" help:"Start MariaDB; print its DSN and write it to --dir/mariadb.dsn."`
	Down mariadbDownCmd `cmd:"" help:"Remove the MariaDB started by mariadb up."`
}

const dsnFile = "mariadb.dsn"
const nameFile = "mariadb.name"

type mariadbUpCmd struct{}

func (mariadbUpCmd) Run(ctx context.Context, c *cli) error {
	if _, err := os.Stat(filepath.Join(c.Dir, nameFile)); err == nil {
		return fmt.Errorf("MariaDB already runs for %s: run kupgrade-lab mariadb down --dir %s first", c.Dir, c.Dir)
	}
	m, err := lab.UpMariaDB(ctx, 0, os.Stderr)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	// The DSN holds the password: readable by its owner only.
	if err := os.WriteFile(filepath.Join(c.Dir, dsnFile), []byte(m.DSN()+"\n"), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, nameFile), []byte(m.Name+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Println(m.DSN())
	return nil
}

type mariadbDownCmd struct{}

func (mariadbDownCmd) Run(ctx context.Context, c *cli) error {
	data, err := os.ReadFile(filepath.Join(c.Dir, nameFile))
	if errors.Is(err, os.ErrNotExist) {
		fmt.Printf("no MariaDB in %s\n", c.Dir)
		return nil
	}
	if err != nil {
		return err
	}
	name := string(data[:len(data)-1])
	if err := lab.Remove(ctx, name); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(c.Dir, dsnFile))
	_ = os.Remove(filepath.Join(c.Dir, nameFile))
	fmt.Printf("removed %s\n", name)
	return nil
}
