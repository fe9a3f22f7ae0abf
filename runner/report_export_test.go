package runner

import (
	"io"
	"time"
)

// NewTextReporterAt is a terminal text reporter reading the time from now.
func NewTextReporterAt(w io.Writer, now func() time.Time) Reporter {
	return newTextReporter(w, true, now)
}

// ShortDuration is shortDuration, the duration a timeout's message names.
var ShortDuration = shortDuration
