// Package notify tells someone who is not watching that an upgrade failed, is stuck or
// completed: a JSON POST to a webhook (--notify-url, KUPGRADE_NOTIFY_URL) naming the cluster,
// the state, the host, the finding and the next command to type.
//
// It never blocks the upgrade: Send queues the event in a bounded queue (a full queue drops it
// and counts it) and one goroutine posts them, each POST bounded by a timeout and retried a
// bounded number of times with a doubling backoff. Close drains the queue for at most a short
// deadline, then gives up on what is left, so a dead or hanging webhook cannot slow a run's
// exit by more than that deadline nor change its outcome.
//
// A redirect is refused, not followed: the payload never goes to another host or over plain
// http. The webhook's address reaches errors as its scheme and host only (its path may hold
// the token).
package notify
