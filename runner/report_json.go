package runner

import (
	"encoding/json"
	"io"
	"sync"
)

type jsonReporter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewJSONReporter writes one JSON object per event (JSON Lines, docs/cli.md "Output").
func NewJSONReporter(w io.Writer) Reporter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonReporter{enc: enc}
}

func (r *jsonReporter) Report(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// An event that cannot be encoded (a value in Data without a JSON form) still leaves a line.
	if err := r.enc.Encode(e); err != nil {
		e.Data = map[string]any{"encode_error": err.Error()}
		_ = r.enc.Encode(e)
	}
}
