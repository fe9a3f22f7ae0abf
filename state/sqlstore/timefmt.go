package sqlstore

import (
	"database/sql/driver"
	"fmt"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// timeLayout is how every time is stored: UTC, microseconds, no zone (MySQL DATETIME(6)).
const timeLayout = "2006-01-02 15:04:05.000000"

// fmtTime formats t for a query parameter, in UTC whatever t's location.
func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// readLayouts are accepted when reading: ours, SQLite's datetime() (no fraction), and ISO 8601
// spellings a person might type. A layout without a zone is read as UTC.
var readLayouts = []string{
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	time.RFC3339Nano,
	"2006-01-02 15:04",
	"2006-01-02",
}

// parseTime reads a stored time as UTC.
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range readLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("parse stored time %q: want YYYY-MM-DD HH:MM:SS[.ffffff] (UTC)", s)
}

// nullTime scans a time column that may be NULL; it accepts text, bytes (MySQL without
// parseTime) and time.Time (a driver that parses by itself: its wall clock is taken as UTC,
// since the column holds UTC without a zone).
type nullTime struct {
	Time  time.Time
	Valid bool
}

func (n *nullTime) Scan(src any) error {
	var err error
	switch v := src.(type) {
	case nil:
		n.Time, n.Valid = time.Time{}, false
		return nil
	case string:
		n.Time, err = parseTime(v)
	case []byte:
		n.Time, err = parseTime(string(v))
	case time.Time:
		if v.IsZero() { // MySQL's zero date, which a value it could not store becomes: no time
			err = fmt.Errorf("parse stored time: the zero date 0000-00-00, want YYYY-MM-DD HH:MM:SS[.ffffff] (UTC)")
			break
		}
		y, mo, d := v.Date()
		h, mi, s := v.Clock()
		n.Time = time.Date(y, mo, d, h, mi, s, v.Nanosecond(), time.UTC)
	default:
		err = fmt.Errorf("scan time: unexpected %T", src)
	}
	n.Valid = err == nil
	return err
}

// looseTime is a nullTime whose Scan never fails the row: a value that does not parse is kept as
// Err, so that the row's other columns are still read and the caller can name the bad column
// (badTime). A hand edit of one time must not make the whole row, or the whole list, unreadable.
type looseTime struct {
	nullTime
	Err error
}

func (l *looseTime) Scan(src any) error {
	l.Err = l.nullTime.Scan(src)
	return nil
}

// badTime returns the *state.RowError of a column that did not parse, nil when it did.
func badTime(cluster, host, table, column string, t *looseTime) error {
	if t.Err == nil {
		return nil
	}
	return &state.RowError{Cluster: cluster, Host: host, Table: table, Column: column, Err: t.Err}
}

// ptr returns the time or nil when NULL.
func (n nullTime) ptr() *time.Time {
	if !n.Valid {
		return nil
	}
	t := n.Time
	return &t
}

// nullable turns "" into SQL NULL (host status idle, optional text columns).
func nullable(s string) driver.Value {
	if s == "" {
		return nil
	}
	return s
}
