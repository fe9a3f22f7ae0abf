package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// insertEvent appends e to the event log inside tx; its reason and evidence are stored as
// storedText makes them (valid UTF-8, the reason bounded).
func insertEvent(ctx context.Context, tx *sql.Tx, e state.Event) error {
	var evidence any
	if len(e.Evidence) > 0 {
		evidence = strings.ToValidUTF8(string(e.Evidence), "\uFFFD") // JSON: never cut
	}
	e.Reason = storedText(e.Reason, maxText)
	_, err := tx.ExecContext(ctx, `INSERT INTO kube_upgrade_event (cluster, upgrade_uuid, hostname, actor,
		from_state, to_state, from_host_status, to_host_status, reason, evidence, created_at, hop)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.Cluster, e.UpgradeUUID, nullable(e.Hostname), e.Actor, nullable(string(e.FromState)),
		nullable(string(e.ToState)), nullable(string(e.FromHostStatus)), nullable(string(e.ToHostStatus)),
		e.Reason, evidence, fmtTime(e.CreatedAt), e.Hop)
	if err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	return nil
}

// hasEvent reports whether e, the event a transaction wrote, is in the log: the receipt of a
// commit whose answer was lost. Its time is the database's, to the microsecond, read in that
// transaction; with its cluster, states, actor and reason it names one write.
func (s *Store) hasEvent(ctx context.Context, e state.Event) (bool, error) {
	if e.Cluster == "" {
		return false, nil // the attempt wrote no event: it stopped before
	}
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM kube_upgrade_event WHERE cluster = ? AND created_at = ?
		AND COALESCE(to_state, '') = ? AND COALESCE(from_state, '') = ? AND actor = ? AND reason = ?`,
		e.Cluster, fmtTime(e.CreatedAt), string(e.ToState), string(e.FromState), e.Actor, storedText(e.Reason, maxText)).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("read the event log: %w", err)
	}
	return n > 0, nil
}

// AddEvent appends an event that changes no state: evidence found after the outcome it belongs
// to was recorded. Its upgrade_uuid, states and time are the store's: the upgrade's current
// state (from = to), and now on the database's clock.
func (s *Store) AddEvent(ctx context.Context, e state.Event) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		u, err := s.readUpgrade(ctx, tx, e.Cluster, false)
		if err != nil {
			return err
		}
		if e.CreatedAt, err = s.txNow(ctx, tx); err != nil {
			return err
		}
		e.UpgradeUUID, e.FromState, e.ToState, e.Hop = u.UUID, u.State, u.State, u.HopLabel()
		return insertEvent(ctx, tx, e)
	})
	if err != nil {
		return fmt.Errorf("add event: %w", err)
	}
	return nil
}

// Events returns the newest limit events of cluster ("" for every cluster), newest first;
// limit <= 0 returns them all.
func (s *Store) Events(ctx context.Context, cluster string, limit int) ([]state.Event, error) {
	return again(ctx, s, func() ([]state.Event, error) { return s.events(ctx, cluster, limit) })
}

func (s *Store) events(ctx context.Context, cluster string, limit int) ([]state.Event, error) {
	query := `SELECT e.id, e.cluster, e.upgrade_uuid, COALESCE(e.hostname, ''), e.actor,
		COALESCE(e.from_state, ''), COALESCE(e.to_state, ''), COALESCE(e.from_host_status, ''),
		COALESCE(e.to_host_status, ''), e.reason, e.evidence, e.created_at, e.hop FROM kube_upgrade_event e`
	var args []any
	if cluster != "" {
		query += " WHERE e.cluster = ?"
		args = append(args, cluster)
	}
	query += " ORDER BY e.id DESC"
	if limit > 0 {
		query += " LIMIT ?"
		args = append(args, limit)
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	defer rows.Close()
	var es []state.Event
	for rows.Next() {
		var e state.Event
		var evidence sql.NullString
		var created nullTime
		if err := rows.Scan(&e.ID, &e.Cluster, &e.UpgradeUUID, &e.Hostname, &e.Actor, &e.FromState,
			&e.ToState, &e.FromHostStatus, &e.ToHostStatus, &e.Reason, &evidence, &created, &e.Hop); err != nil {
			return nil, fmt.Errorf("read events: %w", err)
		}
		if evidence.Valid && evidence.String != "" {
			e.Evidence = []byte(evidence.String)
		}
		e.CreatedAt = created.Time
		es = append(es, e)
	}
	return es, rows.Err()
}
