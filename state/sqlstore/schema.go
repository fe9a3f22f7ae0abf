package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// appliedMigration is a schema_migrations row.
type appliedMigration struct {
	version int
	name    string
	at      string
}

// Pending counts the migrations of d not yet recorded in db's schema_migrations, with plain
// reads only. A database without that table has every migration pending; so does one that
// cannot be read (the migration that follows then reports why). A schema holding a migration d
// does not know is refused (ErrBadInput): a newer kupgrade wrote it, and this one would misread
// it or write what it no longer means.
func Pending(ctx context.Context, db *sql.DB, d *Dialect) (int, error) {
	ms, err := (&Store{d: d}).migrations()
	if err != nil {
		return 0, err
	}
	return pending(ctx, db, ms)
}

func pending(ctx context.Context, q querier, ms []migration) (int, error) {
	applied, err := readApplied(ctx, q)
	if err != nil {
		return len(ms), nil
	}
	if err := refuseUnknown(ms, applied); err != nil {
		return 0, err
	}
	n := 0
	for _, m := range ms {
		if _, ok := applied[m.version]; !ok {
			n++
		}
	}
	return n, nil
}

// readApplied reads schema_migrations by version.
func readApplied(ctx context.Context, q querier) (map[int]appliedMigration, error) {
	rows, err := q.QueryContext(ctx, "SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	applied := map[int]appliedMigration{}
	for rows.Next() {
		var m appliedMigration
		var at sql.NullString
		if err := rows.Scan(&m.version, &m.name, &at); err != nil {
			return nil, err
		}
		m.at = at.String
		applied[m.version] = m
	}
	return applied, rows.Err()
}

// refuseUnknown refuses a schema with migrations that ms does not hold, naming them.
func refuseUnknown(ms []migration, applied map[int]appliedMigration) error {
	known := map[int]bool{}
	for _, m := range ms {
		known[m.version] = true
	}
	var unknown []appliedMigration
	for v, a := range applied {
		if !known[v] {
			unknown = append(unknown, a)
		}
	}
	sort.Slice(unknown, func(i, j int) bool { return unknown[i].version < unknown[j].version })
	names := make([]string, len(unknown))
	for i, a := range unknown {
		names[i] = fmt.Sprintf("%s (applied %s)", a.name, a.at)
	}
	if len(unknown) == 0 {
		return nil
	}
	err := fmt.Errorf("%w: the database's schema holds migrations this kupgrade does not know: %s", state.ErrBadInput, strings.Join(names, ", "))
	return state.WithNextSteps(err, "; a newer kupgrade has upgraded this database, and this older one would misread it "+
		"or run unfenced: run the newer kupgrade (%s shows which one this is)", state.Next("version"))
}
