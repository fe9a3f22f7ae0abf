package runner

import (
	"encoding/json"
	"time"
)

// EventKind is the `event` value of a JSON Lines event (docs/cli.md "Output"): one of the constants
// below, the only place these strings are spelled.
type EventKind string

// Event kinds. The upgrade workflow sends state_changed and audit through the same Reporter.
const (
	EventPlayStart       EventKind = "play_start"
	EventTaskStart       EventKind = "task_start"
	EventTaskOK          EventKind = "task_ok"
	EventTaskChanged     EventKind = "task_changed"
	EventTaskFailed      EventKind = "task_failed"
	EventTaskSkipped     EventKind = "task_skipped"
	EventHostUnreachable EventKind = "host_unreachable"
	EventPlayRecap       EventKind = "play_recap"
	EventStateChanged    EventKind = "state_changed"
	EventAudit           EventKind = "audit"
	// EventStepStart is a step of `upgrade run` starting: Msg is "step 5/9 second-master
	// controller-1" (the count is of this run's steps).
	EventStepStart EventKind = "step_start"
	// EventError is the final error of a command run with -o json (on stderr, with the message
	// and the exit status), not an event of the stream itself.
	EventError EventKind = "error"
)

// Event is one line of a stream (docs/cli.md "Output"). Its JSON form always has the keys time (RFC
// 3339, UTC), event, host and task; the other keys appear when set.
type Event struct {
	Time    time.Time
	Event   EventKind
	Host    string
	Task    string
	Changed bool
	RC      *int
	Msg     string
	// MsgJSON is the JSON of the result's msg when it is not text (debug of a list or a
	// mapping), as Python writes it (2.0 stays 2.0): Msg is then its display
	// (jinja.Display) and the event's JSON form has this value as its msg.
	MsgJSON   json.RawMessage
	Stdout    string
	Stderr    string
	FromState string
	ToState   string
	Recap     map[string]*HostRecap
	Data      map[string]any
	// Duration is how long the task took on the host (results only).
	Duration time.Duration
	// Ignored marks a failure that ignore_errors let pass.
	Ignored bool
	// Diff is the result's "diff" under --diff or the diff keyword (a mapping or a list, as the
	// module returned it); DiffText is what the text output prints of it, and of each changed
	// loop item's, before the result's line: both empty when the task ran without diff.
	Diff     any
	DiffText string
}

type eventJSON struct {
	Time      string                `json:"time"`
	Event     EventKind             `json:"event"`
	Host      string                `json:"host"`
	Task      string                `json:"task"`
	Changed   bool                  `json:"changed,omitempty"`
	RC        *int                  `json:"rc,omitempty"`
	Msg       any                   `json:"msg,omitempty"`
	Stdout    string                `json:"stdout,omitempty"`
	Stderr    string                `json:"stderr,omitempty"`
	FromState string                `json:"from_state,omitempty"`
	ToState   string                `json:"to_state,omitempty"`
	Recap     map[string]*HostRecap `json:"recap,omitempty"`
	Data      map[string]any        `json:"data,omitempty"`
	Duration  *float64              `json:"duration,omitempty"`
	Ignored   bool                  `json:"ignored,omitempty"`
	Diff      any                   `json:"diff,omitempty"`
}

// MarshalJSON writes the stable JSON Lines form of docs/cli.md.
func (e Event) MarshalJSON() ([]byte, error) {
	t := e.Time
	if t.IsZero() {
		t = time.Now()
	}
	j := eventJSON{
		Time: t.UTC().Format(time.RFC3339Nano), Event: e.Event, Host: e.Host, Task: e.Task,
		Changed: e.Changed, RC: e.RC, Stdout: e.Stdout, Stderr: e.Stderr,
		FromState: e.FromState, ToState: e.ToState, Recap: e.Recap, Data: e.Data, Ignored: e.Ignored,
		Diff: e.Diff,
	}
	switch {
	case e.MsgJSON != nil:
		j.Msg = e.MsgJSON
	case e.Msg != "":
		j.Msg = e.Msg
	}
	if e.Duration > 0 {
		d := e.Duration.Round(time.Millisecond).Seconds()
		j.Duration = &d
	}
	return json.Marshal(j)
}

// Reporter receives events. The engine serialises its own calls; implementations shared with
// other senders (the upgrade workflow) must be safe for concurrent use, as ours are.
type Reporter interface {
	Report(Event)
}

type discard struct{}

func (discard) Report(Event) {}
