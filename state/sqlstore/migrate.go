package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

type migration struct {
	version int
	name    string
	stmts   []string
}

// migrations reads the dialect's NNNN_name.sql files in version order.
func (s *Store) migrations() ([]migration, error) {
	names, err := fs.Glob(s.d.Migrations, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	var ms []migration
	for _, name := range names {
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must be NNNN_what.sql", name)
		}
		body, err := fs.ReadFile(s.d.Migrations, name)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		ms = append(ms, migration{version: v, name: name, stmts: splitSQL(string(body))})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// splitSQL splits a migration into statements at a ';' that ends a line, dropping "--" comment
// lines, so that no driver needs a multi-statement mode.
func splitSQL(body string) []string {
	var stmts []string
	var cur strings.Builder
	for line := range strings.SplitSeq(body, "\n") {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		cur.WriteString(line + "\n")
		if strings.HasSuffix(strings.TrimSpace(line), ";") {
			stmts = append(stmts, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	if t := strings.TrimSpace(cur.String()); t != "" {
		stmts = append(stmts, t)
	}
	return stmts
}

// migrate applies every migration not yet recorded in schema_migrations, each in its own
// transaction on one connection. (MySQL commits DDL implicitly, so there a migration is atomic
// only statement by statement: its statements are written to be safe to run again.)
func (s *Store) migrate(ctx context.Context) error {
	ms, err := s.migrations()
	if err != nil {
		return err
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	if s.d.MigrateLock != nil {
		unlock, err := s.d.MigrateLock(ctx, conn)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		defer unlock()
	}
	if _, err := conn.ExecContext(ctx, s.d.MigrationsTable); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	// Under the lock again: a newer kupgrade may have migrated since New looked.
	if _, err := pending(ctx, conn, ms); err != nil {
		return err
	}
	for _, m := range ms {
		if err := s.apply(ctx, conn, m); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) apply(ctx context.Context, conn *sql.Conn, m migration) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit this is a no-op
	var n int
	err = tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM schema_migrations WHERE version = ?", m.version).Scan(&n)
	if err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	if n > 0 {
		return nil
	}
	for _, stmt := range m.stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	_, err = tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
		m.version, m.name, fmtTime(s.Now()))
	if err != nil {
		return fmt.Errorf("migration %s: record: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %s: commit: %w", m.name, err)
	}
	return nil
}
