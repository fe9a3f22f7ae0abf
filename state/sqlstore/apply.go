package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// Apply applies c in one transaction with compare-and-set (see state.Change).
func (s *Store) Apply(ctx context.Context, c state.Change) (state.Upgrade, error) {
	if err := c.Err(); err != nil {
		return state.Upgrade{}, err
	}
	var out state.Upgrade
	var ev state.Event // the attempt's event: its row is the receipt of a commit
	err := s.inTxChecked(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = s.applyTx(ctx, tx, c, &ev)
		return err
	}, func(ctx context.Context) (bool, error) { return s.hasEvent(ctx, ev) })
	if err != nil {
		return state.Upgrade{}, fmt.Errorf("apply %s -> %s: %w", c.From(), c.To(), err)
	}
	return out, nil
}

// applyTx applies c in tx; *written is set to the event it writes (its receipt).
func (s *Store) applyTx(ctx context.Context, tx *sql.Tx, c state.Change, written *state.Event) (state.Upgrade, error) {
	now, err := s.txNow(ctx, tx)
	if err != nil {
		return state.Upgrade{}, err
	}
	// A time of the upgrade row that does not parse decides nothing here (and a change of state
	// rewrites state_entered_at): only the state is compared.
	u, err := s.readUpgrade(ctx, tx, c.Cluster(), true)
	if err != nil && !errors.Is(err, state.ErrBadRow) {
		return u, err
	}
	if u.State != c.From() {
		return u, conflict(c.Cluster(), "expected state %s, found %s", c.From(), u.State)
	}
	if hop, ok := c.AtHop(); ok && u.Hop != hop {
		return u, conflict(c.Cluster(), "expected hop %d of %s, found hop %d", hop+1, u.ToVersion, u.Hop+1)
	}
	if gen, ok := c.AtGeneration(); ok && u.Generation != gen {
		return u, conflict(c.Cluster(), "expected lease generation %d, found %d: an operation started since the upgrade was read", gen, u.Generation)
	}
	lease, err := s.readLease(ctx, tx, c.Cluster(), true)
	if err != nil && !errors.Is(err, state.ErrBadRow) {
		return u, err
	}
	if err := checkLease(c, lease, err, now); err != nil {
		return u, err
	}
	_, acquire := c.AcquireLease()
	if acquire {
		if err := s.noneLeftInFlight(ctx, tx, c); err != nil {
			return u, err
		}
	}
	if c.To().Failed() {
		// The one failing path clears the host being worked on: a failed state with a host
		// still upgrading-control-plane would refuse the retry (the bug kupgrade exists for).
		if host, err := s.otherInFlight(ctx, tx, c); err != nil || host != "" {
			if err != nil {
				return u, err
			}
			return u, conflict(c.Cluster(), "failing %s would leave host %s in flight: fail names the host being worked on", c.From(), host)
		}
	}
	if !acquire && lease == nil && leavesInFlight(c) {
		return u, conflict(c.Cluster(), "%s would be in flight with no lease: the operation it belongs to holds none (it was failed or finished meanwhile)", what(c))
	}
	ev := state.Event{Cluster: c.Cluster(), UpgradeUUID: u.UUID, Hostname: c.Host(), Actor: c.Actor(),
		FromState: u.State, ToState: c.To(), Reason: c.Reason(), Evidence: c.Evidence(), CreatedAt: now}
	if c.Host() != state.WholeCluster {
		if ev.FromHostStatus, ev.ToHostStatus, err = s.applyHost(ctx, tx, c, now); err != nil {
			return u, err
		}
	}
	if err := s.applyUpgrade(ctx, tx, c, &u, now); err != nil {
		return u, err
	}
	if all, ok := c.AllHostsTo(); ok {
		err := s.onHostUpgrades(ctx, tx, c.Cluster(), "UPDATE kube_host_upgrade SET status = ?, updated_at = ?", nullable(string(all)), fmtTime(now))
		if err != nil {
			return u, fmt.Errorf("set host statuses: %w", err)
		}
	}
	if err := s.applyLease(ctx, tx, c, lease, now, &u); err != nil {
		return u, err
	}
	ev.Hop = u.HopLabel() // the hop the upgrade is at once the change is made
	*written = ev
	return u, insertEvent(ctx, tx, ev)
}

// checkLease checks the change's lease conditions against the row read under the lock. When
// its times cannot be read (unreadable, an ErrBadRow), the owner still can: a change that needs
// the lease not to be live is refused, one that does not (a forced fail) deletes or replaces it.
func checkLease(c state.Change, l *state.Lease, unreadable error, now time.Time) error {
	if l == nil {
		return nil
	}
	held := fmt.Sprintf("lease held by %s for %s until %s", l.Owner, l.Operation, fmtTime(l.ExpiresAt))
	if unreadable != nil {
		held = fmt.Sprintf("lease held by %s for %s that cannot be read (%v), so nobody can tell whether it is live",
			l.Owner, l.Operation, unreadable)
	}
	err := leaseMismatch(c, l, unreadable != nil, now, held)
	if err != nil && unreadable != nil {
		return state.WithNextSteps(err, "; `%s` deletes it", state.Next("upgrade", "failed", "--force"))
	}
	return err
}

// leaseMismatch is checkLease's refusal, held describing the lease found, nil when c may go on.
func leaseMismatch(c state.Change, l *state.Lease, unreadable bool, now time.Time, held string) error {
	spec, acquire := c.AcquireLease()
	switch {
	case unreadable && (c.LeaseNotLive() || (acquire && l.Owner != spec.Owner)):
		return conflict(c.Cluster(), "expected no live lease, found a %s", held)
	case c.LeaseOwner() != "" && l.Owner != c.LeaseOwner():
		return conflict(c.Cluster(), "expected the lease of %s, found the %s", c.LeaseOwner(), held)
	case c.LeaseNotLive() && l.Live(now):
		return conflict(c.Cluster(), "expected no live lease, found a %s", held)
	case acquire && l.Owner != spec.Owner && l.Live(now):
		return conflict(c.Cluster(), "cannot take the lease for %s: found a live %s", spec.Operation, held)
	}
	return nil
}

// applyUpgrade moves the upgrade row with compare-and-set on its state and updates u.
func (s *Store) applyUpgrade(ctx context.Context, tx *sql.Tx, c state.Change, u *state.Upgrade, now time.Time) error {
	set, args := "state = ?, updated_at = ?", []any{string(c.To()), fmtTime(now)}
	if c.To() != u.State {
		set += ", state_entered_at = ?"
		args = append(args, fmtTime(now))
		u.StateEnteredAt = now
	}
	if hop, ok := c.HopTo(); ok {
		if hop >= len(u.Hops) {
			return conflict(c.Cluster(), "expected a hop %d of %s, found %d hops", hop+1, u.ToVersion, len(u.Hops))
		}
		set += ", hop = ?"
		args = append(args, hop)
		u.Hop = hop
	}
	if c.CountsRecovery() {
		set += ", recovery_attempts = recovery_attempts + 1"
		u.RecoveryAttempts++
	}
	res, err := tx.ExecContext(ctx, "UPDATE kube_upgrade SET "+set+" WHERE id = ? AND state = ?",
		append(args, u.ID, string(c.From()))...)
	if err := one(res, err, c.Cluster(), "upgrade state"); err != nil {
		return err
	}
	u.State, u.UpdatedAt = c.To(), now
	return nil
}

// applyHost checks and moves the status of c.Host() with compare-and-set; it returns the status
// found and the status written, for the event. NULL and ” (a hand edit) are both idle.
func (s *Store) applyHost(ctx context.Context, tx *sql.Tx, c state.Change, now time.Time) (from, to state.HostStatus, err error) {
	var id int64
	var status sql.NullString
	err = tx.QueryRowContext(ctx, `SELECT hu.id, hu.status FROM kube_host_upgrade hu JOIN host h ON h.id = hu.host_id
		WHERE h.cluster = ? AND h.hostname = ?`+s.d.ForUpdate, c.Cluster(), c.Host()).Scan(&id, &status)
	if isNoRows(err) {
		return "", "", fmt.Errorf("%w: host %s is not part of the upgrade of cluster %q", state.ErrNotFound, c.Host(), c.Cluster())
	}
	if err != nil {
		return "", "", fmt.Errorf("read host %s: %w", c.Host(), err)
	}
	from = state.HostStatus(status.String)
	if c.HostFrom() != from {
		return "", "", conflict(c.Cluster(), "expected host %s status %s, found %s", c.Host(), c.HostFrom(), from)
	}
	to = c.HostTo()
	set, args := "updated_at = ?, status = ?", []any{fmtTime(now), nullable(string(to))}
	if c.Target() != "" {
		set += ", target_version = ?"
		args = append(args, c.Target())
	}
	if b := c.BackupsBefore(); b != nil {
		text, err := state.EncodeBackups(*b)
		if err != nil {
			return "", "", err
		}
		// A host that has a record keeps it: the first step's baseline stands for the upgrade.
		set += ", backups = CASE WHEN COALESCE(backups, '') = '' THEN ? ELSE backups END"
		args = append(args, text)
	}
	res, err := tx.ExecContext(ctx, "UPDATE kube_host_upgrade SET "+set+" WHERE id = ? AND COALESCE(status, '') = ?",
		append(args, id, string(from))...)
	return from, to, one(res, err, c.Cluster(), "status of host "+c.Host())
}

// applyLease releases and/or takes the lease; l is the row read under the lock. u learns the
// generation a lease taken gets.
func (s *Store) applyLease(ctx context.Context, tx *sql.Tx, c state.Change, l *state.Lease, now time.Time, u *state.Upgrade) error {
	release := c.ReleasesLease() && l != nil
	if release {
		// The lease goes with the last host in flight: released while another host of the
		// operation (a batch's, a runner's that died) is still in flight, it would leave that
		// host with nobody's lease. It stays, and the write about that host releases it.
		left, err := s.otherInFlight(ctx, tx, c)
		if err != nil {
			return err
		}
		release = left == ""
	}
	if release {
		res, err := tx.ExecContext(ctx, "DELETE FROM upgrade_lease WHERE cluster = ? AND owner = ?", c.Cluster(), l.Owner)
		if err := one(res, err, c.Cluster(), "lease"); err != nil {
			return err
		}
		l = nil
	}
	spec, acquire := c.AcquireLease()
	if !acquire {
		return nil
	}
	gen, err := s.nextGeneration(ctx, tx, c.Cluster())
	if err != nil {
		return err
	}
	u.Generation = gen
	exp := fmtTime(now.Add(spec.TTL))
	if l == nil {
		_, err := tx.ExecContext(ctx, `INSERT INTO upgrade_lease (cluster, owner, operation, generation, acquired_at, heartbeat_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, c.Cluster(), spec.Owner, storedText(spec.Operation, maxName), gen, fmtTime(now), fmtTime(now), exp)
		if err != nil && s.d.Duplicate(err) {
			return conflict(c.Cluster(), "another operation took the lease at the same moment")
		}
		if err != nil {
			return fmt.Errorf("take lease: %w", err)
		}
		return nil
	}
	res, err := tx.ExecContext(ctx, `UPDATE upgrade_lease SET owner = ?, operation = ?, generation = ?, acquired_at = ?, heartbeat_at = ?,
		expires_at = ? WHERE cluster = ? AND owner = ?`, spec.Owner, storedText(spec.Operation, maxName), gen, fmtTime(now), fmtTime(now), exp, c.Cluster(), l.Owner)
	return one(res, err, c.Cluster(), "lease")
}

// nextGeneration takes the cluster's next lease generation (the fencing token of the lease
// being acquired), in the transaction that acquires it.
func (s *Store) nextGeneration(ctx context.Context, tx *sql.Tx, cluster string) (int64, error) {
	res, err := tx.ExecContext(ctx, "UPDATE kube_upgrade SET lease_generation = lease_generation + 1 WHERE cluster = ?", cluster)
	if err := one(res, err, cluster, "lease generation"); err != nil {
		return 0, err
	}
	var gen int64
	if err := tx.QueryRowContext(ctx, "SELECT lease_generation FROM kube_upgrade WHERE cluster = ?", cluster).Scan(&gen); err != nil {
		return 0, fmt.Errorf("read lease generation: %w", err)
	}
	return gen, nil
}

// noneLeftInFlight refuses to take a cluster's lease while a host other than the change's own is
// still in flight: that host's operation (a dead runner's batch, a half-failed one) would then be
// in flight under a lease that is not its own, and released with it (docs/states.md: nothing is in
// flight without a live lease). It must be failed first.
func (s *Store) noneLeftInFlight(ctx context.Context, tx *sql.Tx, c state.Change) error {
	host, err := s.otherInFlight(ctx, tx, c)
	if err != nil || host == "" {
		return err
	}
	return state.WithNextSteps(conflict(c.Cluster(), "host %s is still in flight from an earlier operation that holds no live lease", host),
		"; fail it first with `%s` (or `%s`)", state.Next("recover"), state.Next("upgrade", "failed"))
}

// otherInFlight names a host of the change's cluster, other than the change's own, whose status
// is in flight ("" for none).
func (s *Store) otherInFlight(ctx context.Context, tx *sql.Tx, c state.Change) (string, error) {
	var host string
	marks, args := inFlightStatuses()
	err := tx.QueryRowContext(ctx, `SELECT h.hostname FROM host h JOIN kube_host_upgrade hu ON hu.host_id = h.id
		WHERE h.cluster = ? AND h.hostname <> ? AND hu.status IN (`+marks+`) ORDER BY h.id LIMIT 1`,
		append([]any{c.Cluster(), c.Host()}, args...)...).Scan(&host)
	if isNoRows(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read hosts in flight: %w", err)
	}
	return host, nil
}

// leavesInFlight reports whether c puts the state or its host in flight.
func leavesInFlight(c state.Change) bool {
	hostIn := c.Host() != state.WholeCluster && c.HostTo().InFlight()
	return c.To().InFlight() && c.To() != c.From() || hostIn
}

// what names what c puts in flight, for a message.
func what(c state.Change) string {
	if c.Host() != state.WholeCluster && c.HostTo().InFlight() {
		return fmt.Sprintf("host %s (%s)", c.Host(), c.HostTo())
	}
	return "state " + string(c.To())
}
