package state

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Identity names the database the DSN opens, the same for every runner that opens that
// database and different for two that do not, without its user or password: a SQLite file is
// its machine's name and absolute path (two laptops' files at the same path are two databases),
// a MySQL database its servers (sorted) and name. The host fence stamps it, so that another database's
// upgrade of a cluster is told apart and named in a refusal.
func (d DSN) Identity() string {
	if d.Driver == "sqlite" {
		host, _ := os.Hostname()
		path, err := filepath.Abs(d.Path)
		if err != nil {
			path = d.Path
		}
		return "sqlite:" + host + ":" + path
	}
	if d.Net == "unix" {
		host, _ := os.Hostname()
		return "mysql:" + host + ":unix(" + d.Addr + ")/" + d.Database
	}
	addrs := d.Addrs()
	slices.Sort(addrs) // one Galera cluster, whatever order a runner names its servers in
	return "mysql://" + strings.Join(addrs, ",") + "/" + d.Database
}
