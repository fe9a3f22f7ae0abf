package upgrade

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// ownFolder is a cluster name that is its own folder name (as it always was): lowercase letters,
// digits, '.', '_' and '-', a letter or a digit first, at most 128 bytes. No other name maps to
// it, even on a file system that ignores case.
var ownFolder = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,127}$`)

// unsafeName is what the readable part of another name's folder may not carry.
var unsafeName = regexp.MustCompile(`[^a-z0-9._-]`)

// SnapshotFolder is where the etcd snapshots of cluster go under dir: a folder of the cluster's
// own, which no other cluster shares (pruning one cluster's snapshots never touches another's)
// and which is always under dir. A name that is not its own folder name (see ownFolder) gets a
// readable part and '~' with a hash of the exact name: `prod/east`, `prod_east`, `prod east` and
// `Prod_east` are four folders, `..` one of its own.
func SnapshotFolder(dir, cluster string) string {
	if ownFolder.MatchString(cluster) {
		return filepath.Join(dir, cluster)
	}
	readable := strings.TrimLeft(unsafeName.ReplaceAllString(strings.ToLower(cluster), "_"), ".")
	sum := sha256.Sum256([]byte(cluster))
	return filepath.Join(dir, readable[:min(len(readable), 64)]+"~"+hex.EncodeToString(sum[:6]))
}

// snapshotName is the file of u's hop's snapshot: the upgrade's uuid first, so that the
// pruning groups an upgrade's files, then the hop and the store's time.
func (w *Workflow) snapshotName(u state.Upgrade) string {
	return fmt.Sprintf("%s-hop%d-%s.db", u.UUID, u.Hop, w.Store.Now().UTC().Format("20060102T150405Z"))
}

// fetchSnapshot copies the snapshot facts describe from the controller behind c to kupgrade's
// side (copyChecked, against the controller's sha256).
func (w *Workflow) fetchSnapshot(ctx context.Context, c runner.Conn, u state.Upgrade, facts health.SnapshotFacts) (string, error) {
	final := filepath.Join(SnapshotFolder(w.Snapshots.Dir, w.Cluster), w.snapshotName(u))
	return final, copyChecked(ctx, c, facts.Path, final, facts.SHA256, "the controller's file "+facts.SHA256)
}

// copyChecked copies remote from the host behind c to final, under a partial name until its
// sha256 is sum (wantSaid says whose sum it is): a copy cut short (a kill, a lost connection)
// or different never has final's name.
func copyChecked(ctx context.Context, c runner.Conn, remote, final, sum, wantSaid string) error {
	dir := filepath.Dir(final)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make the snapshot folder: %w", err)
	}
	f, err := os.CreateTemp(dir, ".partial-*")
	if err != nil {
		return fmt.Errorf("create the snapshot's copy: %w", err)
	}
	defer os.Remove(f.Name())
	h := sha256.New()
	err = runner.CopyOut(ctx, c, remote, io.MultiWriter(f, h))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w", remote, dir, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		return fmt.Errorf("the copy of %s has sha256 %s, %s: not kept", remote, got, wantSaid)
	}
	if err := os.Rename(f.Name(), final); err != nil {
		return fmt.Errorf("keep the snapshot: %w", err)
	}
	return nil
}

// pruneSnapshots removes, in this cluster's snapshot folder, the files of all but the newest
// Keep upgrades (the running one, current, always kept) and partial copies left by a kill.
// A failure to remove is logged: the snapshot just taken stands.
func (w *Workflow) pruneSnapshots(current string) {
	dir := SnapshotFolder(w.Snapshots.Dir, w.Cluster)
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.log().Warn("etcd snapshots not pruned", "folder", dir, "error", err)
		return
	}
	newest := map[string]int64{} // upgrade uuid -> its newest file's time
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || e.IsDir() {
			continue
		}
		if strings.HasPrefix(e.Name(), ".partial-") {
			w.removeSnapshot(filepath.Join(dir, e.Name()))
		} else if id, _, ok := strings.Cut(e.Name(), "-hop"); ok && strings.HasSuffix(e.Name(), ".db") {
			newest[id] = max(newest[id], info.ModTime().UnixNano())
		}
	}
	for _, id := range w.prunable(newest, current) {
		matches, _ := filepath.Glob(filepath.Join(dir, id+"-hop*.db"))
		for _, m := range matches {
			w.removeSnapshot(m)
		}
	}
}

// prunable are the upgrades beyond the newest Keep (current counted first).
func (w *Workflow) prunable(newest map[string]int64, current string) []string {
	ids := make([]string, 0, len(newest))
	for id := range newest {
		if id != current {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b string) int { return cmp.Compare(newest[b], newest[a]) })
	keep := cmp.Or(w.Snapshots.Keep, 3) - 1
	if keep < 0 || keep >= len(ids) {
		return nil
	}
	return ids[keep:]
}

func (w *Workflow) removeSnapshot(path string) {
	if err := os.Remove(path); err != nil {
		w.log().Warn("etcd snapshot not pruned", "file", path, "error", err)
		return
	}
	w.log().Info("etcd snapshot pruned", "file", path)
}
