package state

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseDSN(t *testing.T) {
	tests := []struct {
		in   string
		want DSN
	}{
		{"sqlite:kupgrade.db", DSN{Driver: "sqlite", Path: "kupgrade.db"}},
		{"sqlite:/var/lib/kupgrade/state.db", DSN{Driver: "sqlite", Path: "/var/lib/kupgrade/state.db"}},
		{"sqlite:///var/lib/k.db", DSN{Driver: "sqlite", Path: "/var/lib/k.db"}},
		{"mysql://kup:s3cret@db.example:3307/kupgrade",
			DSN{Driver: "mysql", User: "kup", Password: "s3cret", Net: "tcp", Addr: "db.example:3307", Database: "kupgrade"}},
		{"mysql://kup:p%40ss%2Fw@10.0.0.5/kupgrade?tls=true&time_zone=%27%2B09%3A00%27",
			DSN{Driver: "mysql", User: "kup", Password: "p@ss/w", Net: "tcp", Addr: "10.0.0.5:3306", Database: "kupgrade",
				Params: []Param{{"tls", "true"}, {"time_zone", "'+09:00'"}}}},
		{"mysql://kup@[::1]:3306/k", DSN{Driver: "mysql", User: "kup", Net: "tcp", Addr: "[::1]:3306", Database: "k"}},
		{"kup:p@ss/w:rd@tcp(127.0.0.1:33061)/kupgrade?parseTime=false",
			DSN{Driver: "mysql", User: "kup", Password: "p@ss/w:rd", Net: "tcp", Addr: "127.0.0.1:33061", Database: "kupgrade",
				Params: []Param{{"parseTime", "false"}}}},
		{"root@unix(/run/mysqld/mysqld.sock)/kupgrade",
			DSN{Driver: "mysql", User: "root", Net: "unix", Addr: "/run/mysqld/mysqld.sock", Database: "kupgrade"}},
		{"mysql://kup:s3cret@db1:3306,db2,[::1]:3307/kupgrade", DSN{Driver: "mysql", User: "kup", Password: "s3cret", Net: "tcp",
			Addr: "db1:3306,db2:3306,[::1]:3307", Database: "kupgrade"}},
		{"kup:s3cret@tcp(db1:3306,db2:3306)/kupgrade", DSN{Driver: "mysql", User: "kup", Password: "s3cret", Net: "tcp",
			Addr: "db1:3306,db2:3306", Database: "kupgrade"}},
		{"kup:pw@/kupgrade", DSN{Driver: "mysql", User: "kup", Password: "pw", Net: "tcp", Addr: "127.0.0.1:3306", Database: "kupgrade"}},
	}
	for _, tc := range tests {
		got, err := ParseDSN(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseDSN(%q) =\n  %#v, %v\nwant\n  %#v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseDSNErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "column 1: empty DSN"},
		{"kupgrade.db", "column 1: not a DSN (for a file, write sqlite:kupgrade.db)"},
		{"postgres://u:p@h/db", `column 1: unknown store "postgres"`},
		{"sqlite:", "column 8: missing the database file"},
		{"mysql://kup:hunter2@db:99999/k", `column 24: bad port "99999"`},
		{"mysql://kup:hunter2@db:3306", "column 28: missing the database name"},
		{"mysql://kup:hunter2@:3306/k", "missing the host"},
		{"mysql://kup:hunter2@db/k?tls", `column 26: parameter "tls" is not key=value`},
		{"mysql://kup:hunter2%zz@db/k", "bad %-escape in the password"},
		{"kup:hunter2@tcp(db:3306/k", "missing ')'"},
		{"kup:hunter2@udp(db:3306)/k", `unknown network "udp"`},
		{"kup:hunter2@db", "column 1: not a DSN"},
		{"mysql://kup:hunter2@db1:3306,,db3/k", "column 30: empty host in the list of servers"},
		{"mysql://kup:hunter2@db1:3306,db2:0/k", `column 34: bad port "0"`},
		{"kup:hunter2@tcp(db1,db 2)/k", `column 21: bad host "db 2"`},
	}
	for _, tc := range tests {
		_, err := ParseDSN(tc.in)
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseDSN(%q) = %v, want ErrBadInput with %q", tc.in, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ParseDSN(%q): the error prints the password: %v", tc.in, err)
		}
	}
}

func TestAddrs(t *testing.T) {
	for in, want := range map[string][]string{
		"mysql://u:p@db1,db2:3307,db3/k": {"db1:3306", "db2:3307", "db3:3306"},
		"mysql://u:p@db1/k":              {"db1:3306"},
		"u@unix(/run/m,1.sock)/k":        {"/run/m,1.sock"},
	} {
		d, err := ParseDSN(in)
		if err != nil || !reflect.DeepEqual(d.Addrs(), want) {
			t.Errorf("ParseDSN(%q).Addrs() = %q, %v; want %q", in, d.Addrs(), err, want)
		}
	}
}

func TestRedacted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"sqlite:k.db", "sqlite:k.db"},
		{"mysql://kup:hunter2@db:3306/k?tls=true", "mysql://kup:***@db:3306/k?tls=true"},
		{"kup:hunter2@tcp(127.0.0.1:3306)/k", "mysql://kup:***@127.0.0.1:3306/k"},
		{"kup@unix(/run/m.sock)/k", "kup@unix(/run/m.sock)/k"},
		{"kup:hunter2@tcp(db1,db2:3307)/k", "mysql://kup:***@db1:3306,db2:3307/k"},
	}
	for _, tc := range tests {
		d, err := ParseDSN(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Redacted(); got != tc.want {
			t.Errorf("Redacted(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzParseDSN: any input either parses or is ErrBadInput, never panics, and neither the error
// nor the redacted form ever contains the password.
func FuzzParseDSN(f *testing.F) {
	for _, s := range []string{"sqlite:k.db", "mysql://u:p@h:1/d?a=b", "u:p@tcp(h:3306)/d?x=%41", "u@unix(/s)/d", "mysql://u:p@a,b:2/d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDSN(s)
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("ParseDSN(%q): %v is not ErrBadInput", s, err)
			}
			return
		}
		if d.Driver != "sqlite" && d.Driver != "mysql" {
			t.Fatalf("ParseDSN(%q): driver %q", s, d.Driver)
		}
		if len(d.Password) >= 4 && strings.Contains(d.Redacted(), d.Password) && !strings.Contains(d.Redacted(), "***") {
			t.Fatalf("Redacted(%q) = %q shows the password", s, d.Redacted())
		}
		if d.Driver == "mysql" {
			back, err := ParseDSN(d.Redacted())
			if err != nil || back.Addr != d.Addr || back.Database != d.Database || back.User != d.User {
				t.Fatalf("Redacted(%q) = %q does not parse back the same: %#v, %v", s, d.Redacted(), back, err)
			}
		}
	})
}
