package mysql

import (
	"errors"
	"fmt"
	"testing"

	driver "github.com/go-sql-driver/mysql"
)

// The server's data errors (a string that is not UTF-8, a value too long for its column) are
// refused values: final, never retried; deadlocks and lock waits are retried, never refused.
func TestDataErrorsAreRefusedValues(t *testing.T) {
	for _, tc := range []struct {
		number             uint16
		refused, retryable bool
	}{
		{1366, true, false}, // Incorrect string value: '\xFF\xFE' for column 'reason'
		{1406, true, false}, // Data too long for column 'operation'
		{1265, true, false},
		{1213, false, true},
		{1205, false, true},
		{1062, false, false},
	} {
		err := fmt.Errorf("write event: %w", &driver.MySQLError{Number: tc.number, Message: "..."})
		if got := dialect.Refused(err); got != tc.refused {
			t.Errorf("error %d: refused = %v, want %v", tc.number, got, tc.refused)
		}
		if got := dialect.Retryable(err); got != tc.retryable {
			t.Errorf("error %d: retryable = %v, want %v", tc.number, got, tc.retryable)
		}
	}
	if dialect.Refused(errors.New("Incorrect string value")) {
		t.Error("a message alone is no data error: only the server's error number says so")
	}
}
