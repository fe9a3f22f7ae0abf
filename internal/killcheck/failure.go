package killcheck

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// Failure is the newest state change of a database, as a failed operation leaves it: who wrote
// it, the state it went to, the host status it cleared, and the class of what the probe found.
type Failure struct {
	Actor, ToState, FromHostStatus, Class string
}

// NewestFailure reads the newest state change among the newest events. The runner records a
// failure first and adds what the probe found as an event of its own (from = to, no host
// status): the finding may be in that later event.
func NewestFailure(ctx context.Context, db *sql.DB) (Failure, error) {
	rows, err := db.QueryContext(ctx, `SELECT actor, COALESCE(from_state, ''), COALESCE(to_state, ''),
		COALESCE(from_host_status, ''), COALESCE(evidence, '') FROM kube_upgrade_event ORDER BY id DESC LIMIT 10`)
	if err != nil {
		return Failure{}, fmt.Errorf("read the newest events: %w", err)
	}
	defer rows.Close()
	var f Failure
	for rows.Next() {
		var from, evidence string
		if err := rows.Scan(&f.Actor, &from, &f.ToState, &f.FromHostStatus, &evidence); err != nil {
			return f, fmt.Errorf("read the newest events: %w", err)
		}
		class, err := findingClass(evidence)
		if err != nil {
			return f, err
		}
		if f.Class == "" {
			f.Class = class
		}
		if from != f.ToState || f.FromHostStatus != "" {
			return f, nil
		}
	}
	return f, fmt.Errorf("no state change among the newest events")
}

// findingClass is the class of the probe's finding an event's evidence holds, if any.
func findingClass(evidence string) (string, error) {
	if evidence == "" {
		return "", nil
	}
	var ev struct {
		Finding *struct {
			Class string `json:"class"`
		} `json:"finding"`
	}
	if err := json.Unmarshal([]byte(evidence), &ev); err != nil {
		return "", fmt.Errorf("evidence is not JSON: %w\n%s", err, evidence)
	}
	if ev.Finding == nil {
		return "", nil
	}
	return ev.Finding.Class, nil
}
