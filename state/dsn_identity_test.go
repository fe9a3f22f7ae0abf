package state

import (
	"os"
	"strings"
	"testing"
)

// A database's identity names it without its user or password, and a SQLite file with the
// machine it is on.
func TestDSNIdentity(t *testing.T) {
	host, _ := os.Hostname()
	for in, want := range map[string]string{
		"sqlite:/var/lib/kupgrade/kupgrade.db":              "sqlite:" + host + ":/var/lib/kupgrade/kupgrade.db",
		"mysql://ops:s3cret@db2:3306,db1:3306/kupgrade":     "mysql://db1:3306,db2:3306/kupgrade",
		"ops:s3cret@tcp(db1:3306)/kupgrade?tls=true":        "mysql://db1:3306/kupgrade",
		"ops:s3cret@unix(/run/mysqld/mysqld.sock)/kupgrade": "mysql:" + host + ":unix(/run/mysqld/mysqld.sock)/kupgrade",
	} {
		d, err := ParseDSN(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := d.Identity(); got != want || strings.Contains(got, "s3cret") || strings.Contains(got, "ops") {
			t.Errorf("Identity(%s) = %q, want %q", in, got, want)
		}
	}
}
