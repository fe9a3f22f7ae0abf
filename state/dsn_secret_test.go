package state

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// A password may hold '/', '@', ':', '?', '(' or ')' as typed: the reported case
// `mysql://u:hunter2/x@db:3306/k` used to fail with `bad port "hunter2"`.
func TestParseDSNPasswordCharacters(t *testing.T) {
	tests := []struct {
		in, password string
	}{
		{"mysql://u:hunter2/x@db:3306/k", "hunter2/x"},
		{"mysql://u:a@b:c/d?e(f)@db:3306/k", "a@b:c/d?e(f)"},
		{"mysql://u:50%25off@db:3306/k", "50%off"},
		{"u:hunter2/x@tcp(db:3306)/k", "hunter2/x"},
		{"u:a@b:c/d?e(f)%@tcp(db:3306)/k", "a@b:c/d?e(f)%"},
		{"u:pa://ss@tcp(db:3306)/k", "pa://ss"},
	}
	for _, tc := range tests {
		d, err := ParseDSN(tc.in)
		want := DSN{Driver: "mysql", User: "u", Password: tc.password, Net: "tcp", Addr: "db:3306", Database: "k"}
		if err != nil || !reflect.DeepEqual(d, want) {
			t.Errorf("ParseDSN(%q) = %#v, %v; want password %q at db:3306/k", tc.in, d, err, tc.password)
		}
		if strings.Contains(d.Redacted(), tc.password) {
			t.Errorf("Redacted(%q) = %q shows the password", tc.in, d.Redacted())
		}
	}
}

// What a malformed DSN's error may quote: text found outside the password's span only.
func TestParseDSNErrorsHidePassword(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"mysql://u:hunter2@db:99999/k", `bad port "99999"`},
		{"mysql://u:hunter2/x@db:3306", "missing the database name"},
		{"mysql://u:hunter2%zz/x@db/k", "bad %-escape in the password"},
		{"u:hunter2@udp(db:3306)/k", `unknown network "udp"`},
		{"u:hunter2@tcp(db:3306/k", "missing ')'"},
		// No database: the parser takes "x@tcp(db:3306)" for it and "kup:hunter2" for the network.
		{"kup:hunter2/x@tcp(db:3306)", "unknown network (not shown: it may hold the password)"},
	}
	for _, tc := range tests {
		_, err := ParseDSN(tc.in)
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseDSN(%q) = %v, want ErrBadInput with %q", tc.in, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ParseDSN(%q): the error shows the password: %v", tc.in, err)
		}
	}
}

func TestDSNErrorHide(t *testing.T) {
	s := "mysql://u:hunter2@db:3306/k"
	e := dsnError(1, "bad %q, bad %q", "hunter2", "db:3306").(*dsnErr)
	e.hide(s)
	got := e.Error()
	if strings.Contains(got, "hunter2") || !strings.Contains(got, `"db:3306"`) || !strings.Contains(got, "not shown") {
		t.Errorf("hide(%q) = %q: want the password hidden and the address shown", s, got)
	}
	e = dsnError(1, "bad %q", "unter").(*dsnErr) // a piece of it is hidden too
	if e.hide(s); strings.Contains(e.Error(), "unter") {
		t.Errorf("hide kept a piece of the password: %q", e.Error())
	}
}

func TestDSNSecrets(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"sqlite:k.db", nil},
		{"mysql://u@db/k", nil},
		{"mysql://u:hunter2@db/k", []string{"hunter2"}},
		{"mysql://u:p%40ss@db/k", []string{"p%40ss"}},
		{"u:hunter2/x@tcp(db:3306)/k", []string{"hunter2/x"}},
		{"mysql://u:hunter2@db:99999/k", []string{"hunter2"}}, // does not parse
		{"--db=mysql://u:hunter2@db/k", []string{"//u:hunter2"}},
		{"u@tcp(db:3306)/k", nil},
	}
	for _, tc := range tests {
		if got := DSNSecrets(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DSNSecrets(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
