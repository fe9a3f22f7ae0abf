package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

var _ state.FleetStore = (*Store)(nil)

// freeSince is the expiry written for a claim nobody holds: any time in the past will do.
var freeSince = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// joinChunk bounds the clusters named in one query (SQLite allows 32,766 parameters).
const joinChunk = 500

// JoinFleet records members in fleet; see state.FleetStore.
func (s *Store) JoinFleet(ctx context.Context, fleet string, members []state.FleetMember) (time.Time, error) {
	var now time.Time
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if now, err = s.txNow(ctx, tx); err != nil {
			return err
		}
		for i := 0; i < len(members); i += joinChunk {
			if err := s.joinChunk(ctx, tx, fleet, members[i:min(i+joinChunk, len(members))], i, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return now, fmt.Errorf("join fleet %s: %w", fleet, err)
	}
	return now, nil
}

type fleetSeen struct {
	fleet, version, goal string
	outcome              state.FleetOutcome
	position             int
	outcomeAt            nullTime
}

func (s *Store) joinChunk(ctx context.Context, tx *sql.Tx, fleet string, ms []state.FleetMember, first int, now time.Time) error {
	args := make([]any, len(ms))
	for i, m := range ms {
		args[i] = m.Cluster
	}
	marks := strings.Repeat(",?", len(ms))[1:]
	rows, err := tx.QueryContext(ctx, "SELECT cluster, fleet, to_version, goal, outcome, position, outcome_at FROM fleet_cluster WHERE cluster IN ("+marks+")", args...)
	if err != nil {
		return fmt.Errorf("read fleet rows: %w", err)
	}
	seen := map[string]fleetSeen{}
	for rows.Next() {
		var c string
		var f fleetSeen
		if err := rows.Scan(&c, &f.fleet, &f.version, &f.goal, &f.outcome, &f.position, &f.outcomeAt); err != nil {
			rows.Close()
			return fmt.Errorf("read fleet rows: %w", err)
		}
		seen[c] = f
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read fleet rows: %w", err)
	}
	if err := state.OtherFleets(fleet, ms, func(c string) (string, bool) { f, ok := seen[c]; return f.fleet, ok }); err != nil {
		return err // before any write: the transaction joins nothing
	}
	for i, m := range ms {
		if err := s.joinOne(ctx, tx, fleet, m, first+i, seen, now); err != nil {
			return err
		}
	}
	return nil
}

// joinOne adds m, or brings its row to this fleet: a cluster done for another version, or that
// failed before this run joined, is to do again.
func (s *Store) joinOne(ctx context.Context, tx *sql.Tx, fleet string, m state.FleetMember, pos int, seen map[string]fleetSeen, now time.Time) error {
	f, ok := seen[m.Cluster]
	if !ok {
		_, err := tx.ExecContext(ctx, `INSERT INTO fleet_cluster (cluster, fleet, position, to_version, goal, outcome, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, m.Cluster, fleet, pos, m.ToVersion, string(m.Until), state.FleetPending, fmtTime(freeSince))
		if err != nil && !s.d.Duplicate(err) { // a runner joining at the same moment added it
			return fmt.Errorf("add %s to fleet %s: %w", m.Cluster, fleet, err)
		}
		return nil
	}
	outcome := f.outcome
	if f.version != m.ToVersion || f.goal != string(m.Until) || (f.outcome == state.FleetFailed && f.outcomeAt.Valid && f.outcomeAt.Time.Before(now)) {
		outcome = state.FleetPending
	}
	if f.fleet == fleet && f.version == m.ToVersion && f.goal == string(m.Until) && f.position == pos && outcome == f.outcome {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE fleet_cluster SET fleet = ?, position = ?, to_version = ?, goal = ?, outcome = ? WHERE cluster = ?`,
		fleet, pos, m.ToVersion, string(m.Until), outcome, m.Cluster)
	if err != nil {
		return fmt.Errorf("move %s to fleet %s: %w", m.Cluster, fleet, err)
	}
	return nil
}

// claimRounds bounds the rounds of ClaimClusters that lose clusters to other runners.
const claimRounds = 4

// ClaimClusters claims pending clusters whose claim is free or expired; see state.FleetStore.
func (s *Store) ClaimClusters(ctx context.Context, q state.ClaimQuery) ([]state.Claim, error) {
	var out []state.Claim
	for round := 0; round < claimRounds && len(out) < q.Max; round++ {
		var lost int
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			got, l, err := s.claimTx(ctx, tx, q, q.Max-len(out))
			out, lost = append(out, got...), l
			return err
		})
		if err != nil {
			return out, fmt.Errorf("claim clusters of fleet %s: %w", q.Fleet, err)
		}
		if lost == 0 {
			break
		}
	}
	return out, nil
}

// claimTx walks the pending clusters in position order, past the live claims, and takes up to n
// free or expired ones with compare-and-set on their generation; lost counts those another
// runner took between the read and the write.
func (s *Store) claimTx(ctx context.Context, tx *sql.Tx, q state.ClaimQuery, n int) (got []state.Claim, lost int, err error) {
	now, err := s.txNow(ctx, tx)
	if err != nil {
		return nil, 0, err
	}
	query := `SELECT cluster, position, to_version, owner, generation FROM fleet_cluster
		WHERE fleet = ? AND outcome = ? AND expires_at <= ?`
	args := []any{q.Fleet, state.FleetPending, fmtTime(now)}
	if q.Below > 0 {
		query += " AND position < ?"
		args = append(args, q.Below)
	}
	rows, err := tx.QueryContext(ctx, query+" ORDER BY position LIMIT ?", append(args, n)...)
	if err != nil {
		return nil, 0, fmt.Errorf("read claimable clusters: %w", err)
	}
	var cands []state.Claim
	for rows.Next() {
		var c state.Claim
		if err := rows.Scan(&c.Cluster, &c.Position, &c.ToVersion, &c.TakenFrom, &c.Generation); err != nil {
			rows.Close()
			return nil, 0, fmt.Errorf("read claimable clusters: %w", err)
		}
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("read claimable clusters: %w", err)
	}
	exp := now.Add(q.TTL)
	for _, c := range cands {
		res, err := tx.ExecContext(ctx, `UPDATE fleet_cluster SET owner = ?, generation = generation + 1, claimed_at = ?,
			expires_at = ?, taken_from = ? WHERE cluster = ? AND generation = ? AND outcome = ? AND expires_at <= ?`,
			q.Owner, fmtTime(now), fmtTime(exp), nullable(c.TakenFrom), c.Cluster, c.Generation, state.FleetPending, fmtTime(now))
		if err := one(res, err, c.Cluster, "fleet claim"); err != nil {
			lost++
			continue
		}
		c.Owner, c.Generation, c.ExpiresAt = q.Owner, c.Generation+1, exp
		got = append(got, c)
	}
	return got, lost, nil
}

// RenewClaim extends owner's claim on cluster by ttl from now.
func (s *Store) RenewClaim(ctx context.Context, cluster, owner string, ttl time.Duration) (state.Lease, error) {
	var out state.Lease
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		now, err := s.txNow(ctx, tx)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "UPDATE fleet_cluster SET expires_at = ? WHERE cluster = ? AND owner = ? AND outcome = ?",
			fmtTime(now.Add(ttl)), cluster, owner, state.FleetPending)
		if err := one(res, err, cluster, "fleet claim of "+owner); err != nil {
			return err
		}
		out = state.Lease{Cluster: cluster, Owner: owner, Operation: "fleet", HeartbeatAt: now, ExpiresAt: now.Add(ttl)}
		return tx.QueryRowContext(ctx, "SELECT generation FROM fleet_cluster WHERE cluster = ?", cluster).Scan(&out.Generation)
	})
	if err != nil {
		return state.Lease{}, fmt.Errorf("renew fleet claim: %w", err)
	}
	return out, nil
}

// FinishClaim records the outcome and frees the claim, if owner still holds generation.
func (s *Store) FinishClaim(ctx context.Context, cluster, owner string, generation int64, outcome state.FleetOutcome, lastError string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		now, err := s.txNow(ctx, tx)
		if err != nil {
			return err
		}
		count := "hand_backs"
		if outcome != state.FleetPending {
			count = "0"
		}
		res, err := tx.ExecContext(ctx, `UPDATE fleet_cluster SET outcome = ?, outcome_at = ?, expires_at = ?, owner = '',
			last_error = ?, hand_backs = `+count+` WHERE cluster = ? AND owner = ? AND generation = ?`,
			outcome, fmtTime(now), fmtTime(freeSince), nullable(storedText(lastError, maxText)), cluster, owner, generation)
		return one(res, err, cluster, "fleet claim of "+owner)
	})
	if err != nil {
		return fmt.Errorf("finish fleet claim: %w", err)
	}
	return nil
}

// FleetPending returns up to limit clusters of fleet still to do: limit rows of the index.
func (s *Store) FleetPending(ctx context.Context, fleet string, limit int) ([]string, error) {
	return again(ctx, s, func() ([]string, error) { return s.fleetPending(ctx, fleet, limit) })
}

func (s *Store) fleetPending(ctx context.Context, fleet string, limit int) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT cluster FROM fleet_cluster WHERE fleet = ? AND outcome = ? ORDER BY position LIMIT ?",
		fleet, state.FleetPending, limit)
	if err != nil {
		return nil, fmt.Errorf("read fleet %s: %w", fleet, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("read fleet %s: %w", fleet, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// FleetFailures counts fleet's clusters that failed at or after since: the failed ones only.
func (s *Store) FleetFailures(ctx context.Context, fleet string, since time.Time) (int, error) {
	return again(ctx, s, func() (int, error) { return s.fleetFailures(ctx, fleet, since) })
}

func (s *Store) fleetFailures(ctx context.Context, fleet string, since time.Time) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM fleet_cluster WHERE fleet = ? AND outcome = ? AND outcome_at >= ?",
		fleet, state.FleetFailed, fmtTime(since)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count failures of fleet %s: %w", fleet, err)
	}
	return n, nil
}

// FleetCanary counts outcomes among fleet's first n clusters: n rows of the position index (a
// GROUP BY would walk the outcome index over the whole fleet instead).
func (s *Store) FleetCanary(ctx context.Context, fleet string, n int) (map[state.FleetOutcome]int, error) {
	return again(ctx, s, func() (map[state.FleetOutcome]int, error) { return s.fleetCanary(ctx, fleet, n) })
}

func (s *Store) fleetCanary(ctx context.Context, fleet string, n int) (map[state.FleetOutcome]int, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT outcome FROM fleet_cluster WHERE fleet = ? AND position < ?", fleet, n)
	if err != nil {
		return nil, fmt.Errorf("read the canaries of fleet %s: %w", fleet, err)
	}
	defer rows.Close()
	out := map[state.FleetOutcome]int{}
	for rows.Next() {
		var o state.FleetOutcome
		if err := rows.Scan(&o); err != nil {
			return nil, fmt.Errorf("read the canaries of fleet %s: %w", fleet, err)
		}
		out[o]++
	}
	return out, rows.Err()
}
