package sqlstore

import (
	"testing"
	"time"
)

// A time column is read from text (SQLite, MySQL without parseTime) or from a time.Time (MySQL
// with parseTime); MySQL's zero date, what a value it could not store becomes, is no time in
// either form, and a looseTime keeps that as its Err instead of failing the row.
func TestNullTimeScan(t *testing.T) {
	want := time.Date(2026, 12, 3, 10, 0, 0, 500000000, time.UTC)
	zone := time.FixedZone("UTC+9", 9*3600)
	for _, tc := range []struct {
		name string
		src  any
		ok   bool
		want time.Time
	}{
		{"ours", "2026-12-03 10:00:00.500000", true, want},
		{"bytes", []byte("2026-12-03 10:00:00.5"), true, want},
		{"driver time, wall clock taken as UTC", time.Date(2026, 12, 3, 10, 0, 0, 500000000, zone), true, want},
		{"garbage", "garbage", false, time.Time{}},
		{"zero date as text", []byte("0000-00-00 00:00:00.000000"), false, time.Time{}},
		{"zero date parsed by the driver", time.Time{}, false, time.Time{}},
	} {
		var l looseTime
		if err := l.Scan(tc.src); err != nil {
			t.Fatalf("%s: looseTime.Scan failed the row: %v", tc.name, err)
		}
		if (l.Err == nil) != tc.ok || l.Valid != tc.ok || !l.Time.Equal(tc.want) {
			t.Errorf("%s: Scan(%v) = %v valid %v, err %v; want %v ok %v", tc.name, tc.src, l.Time, l.Valid, l.Err, tc.want, tc.ok)
		}
	}
	var n nullTime
	if err := n.Scan(nil); err != nil || n.Valid {
		t.Errorf("Scan(NULL) = %+v, %v; want not valid, no error", n, err)
	}
}
