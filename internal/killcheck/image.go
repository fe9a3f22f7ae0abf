package killcheck

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Image is every row an operator would look at, as one string: the upgrade, the hosts, the lease
// and the number of events. Two equal images mean nothing was written in between.
func Image(ctx context.Context, db *sql.DB) (string, error) {
	var b strings.Builder
	for _, q := range []string{
		`SELECT state || '|' || state_entered_at || '|' || updated_at || '|' || recovery_attempts FROM kube_upgrade`,
		`SELECT hostname || '|' || COALESCE(target_version, '') || '|' || COALESCE(status, '') || '|' || u.updated_at
			FROM kube_host_upgrade u JOIN host h ON h.id = u.host_id ORDER BY hostname`,
		`SELECT owner || '|' || heartbeat_at || '|' || expires_at FROM upgrade_lease`,
		`SELECT COUNT(*) FROM kube_upgrade_event`,
	} {
		if err := appendRows(ctx, db, q, &b); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func appendRows(ctx context.Context, db *sql.DB, q string, b *strings.Builder) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		b.WriteString(s + "; ")
	}
	return rows.Err()
}
