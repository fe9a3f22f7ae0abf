package main

import (
	"context"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/mysql"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// openStore opens the store a DSN names: cmd alone chooses implementations.
func openStore(ctx context.Context, raw string) (state.Store, error) {
	dsn, err := state.ParseDSN(raw)
	if err != nil {
		return nil, err
	}
	switch dsn.Driver {
	case "mysql":
		return mysql.Open(ctx, raw)
	default:
		return sqlite.Open(ctx, dsn.Path)
	}
}
