package notify

import "time"

// Kinds of event.
const (
	Failed    = "failed"
	Stuck     = "stuck"
	Completed = "completed"
)

// Event is the JSON document posted to the webhook.
type Event struct {
	Kind    string    `json:"event"` // failed, stuck or completed
	Time    time.Time `json:"time"`
	Cluster string    `json:"cluster"`
	State   string    `json:"state"`
	Host    string    `json:"host,omitempty"`
	Finding string    `json:"finding,omitempty"` // what was found on the host, or why it is stuck
	Next    string    `json:"next,omitempty"`    // the command to type next
	Message string    `json:"message"`
}
