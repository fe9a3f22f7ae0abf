package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// runLogAge is how long a log that belongs to no upgrade is kept (play, fleet run, a run before
// its upgrade exists): such logs are pruned by age when another run of the same folder starts.
// An upgrade's logs are kept until `upgrade delete` deletes the upgrade.
const runLogAge = 30 * 24 * time.Hour

// runLogRoot is where the run logs of the database in use are: KUPGRADE_LOG_DIR, else runs/
// beside the SQLite file; for MySQL, runs/ in the default state folder, in a folder named for the
// database's servers and name.
func (a *app) runLogRoot() string {
	if d := os.Getenv("KUPGRADE_LOG_DIR"); d != "" {
		return d
	}
	d, err := a.dsn()
	switch {
	case err == nil && d.Driver == "sqlite":
		return filepath.Join(filepath.Dir(d.Path), "runs")
	case err == nil:
		return filepath.Join(filepath.Dir(defaultDB()), "runs", "mysql", folderName(d.Addr+"/"+d.Database))
	}
	return filepath.Join(filepath.Dir(defaultDB()), "runs")
}

// runLogFolder is the folder of this run's log and whether it is pruned by age: play/, fleet/
// and watch/ for those commands; else clusters/CLUSTER/UUID, the upgrade's own, kept until it is
// deleted, or clusters/CLUSTER/no-upgrade when the cluster has none (yet).
func (a *app) runLogFolder() (dir string, byAge bool) {
	root := a.runLogRoot()
	switch {
	case strings.HasPrefix(a.cmdName, "play"):
		return filepath.Join(root, "play"), true
	case strings.HasPrefix(a.cmdName, "fleet"):
		return filepath.Join(root, "fleet"), true
	case strings.HasPrefix(a.cmdName, "watch"): // audits every cluster of the database
		return filepath.Join(root, "watch"), true
	}
	if uuid := a.upgradeUUID(); uuid != "" {
		return upgradeLogDir(root, a.cluster(), uuid), false
	}
	return filepath.Join(root, "clusters", folderName(a.cluster()), "no-upgrade"), true
}

// upgradeLogDir is the folder of the logs of upgrade uuid of cluster under root.
func upgradeLogDir(root, cluster, uuid string) string {
	return filepath.Join(root, "clusters", folderName(cluster), folderName(uuid))
}

// upgradeUUID is the uuid of the cluster's upgrade as the database says it now, "" when there is
// none or the database cannot tell.
func (a *app) upgradeUUID() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := a.Reader(ctx)
	if err != nil {
		return ""
	}
	u, err := st.Upgrade(ctx, a.cluster())
	if err != nil {
		return ""
	}
	return u.UUID
}

// folderName is s as one folder name that no other s shares: every byte but letters, digits,
// '-' and '_' is written %XX, so that "prod/east", "prod_east", "prod east" and ".." differ and
// none leaves its folder.
func folderName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	if b.Len() == 0 {
		return "%"
	}
	return b.String()
}

// pruneByAge deletes the run logs of dir older than age.
func pruneByAge(dir string, now time.Time, age time.Duration) {
	names, _ := filepath.Glob(filepath.Join(dir, "run-*.log"))
	for _, n := range names {
		if fi, err := os.Stat(n); err == nil && now.Sub(fi.ModTime()) > age {
			os.Remove(n)
		}
	}
}

// adoptRunLog moves the log at path, made before its cluster had an upgrade (no-upgrade/: an
// `upgrade start`), into the folder of the upgrade the run created, and returns where it is.
func (a *app) adoptRunLog(path string) string {
	if filepath.Base(filepath.Dir(path)) != "no-upgrade" || strings.HasPrefix(a.cmdName, "fleet") {
		return path
	}
	uuid := a.upgradeUUID()
	if uuid == "" {
		return path
	}
	dir := upgradeLogDir(a.runLogRoot(), a.cluster(), uuid)
	to := filepath.Join(dir, filepath.Base(path))
	if os.MkdirAll(dir, 0o700) != nil || os.Rename(path, to) != nil {
		return path
	}
	return to
}

// removeUpgradeLogs deletes the logs of upgrade uuid of cluster (upgrade delete).
func (a *app) removeUpgradeLogs(cluster, uuid string) {
	dir := upgradeLogDir(a.runLogRoot(), cluster, uuid)
	if err := os.RemoveAll(dir); err != nil {
		a.log.Warn("could not delete the upgrade's run logs", "dir", dir, "error", err)
	}
}
