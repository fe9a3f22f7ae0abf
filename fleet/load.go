package fleet

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/inventory"
)

// Target is one cluster of the fleet: its name and the inventory that describes it.
type Target struct {
	Cluster   string
	Source    string // the inventory file or folder, as given
	Inventory *inventory.Inventory
}

// Load reads one inventory per cluster: each of paths, then each entry of dir (a file or a folder
// of inventory, hidden names and Ansible's ignored suffixes skipped), in name order. Every
// inventory must name its cluster (kupgrade_cluster) and no two may name the same one.
func Load(paths []string, dir string) ([]Target, error) {
	all := slices.Clone(paths)
	if dir != "" {
		entries, err := dirInventories(dir)
		if err != nil {
			return nil, err
		}
		all = append(all, entries...)
	}
	if len(all) == 0 {
		return nil, badInput("no inventory given: pass one -i INVENTORY per cluster, or --inventories DIR")
	}
	var out []Target
	seen := map[string]string{}
	for _, p := range all {
		inv, err := inventory.Load(p)
		if err != nil {
			return nil, err
		}
		c := inv.Cluster()
		if c == "" {
			return nil, badInput("inventory %s names no cluster: a fleet's inventories are one cluster each; add `kupgrade_cluster: NAME` under all: vars: (or to group_vars/all)", p)
		}
		if first, ok := seen[c]; ok {
			return nil, badInput("inventories %s and %s both name cluster %q: give each cluster one inventory (change kupgrade_cluster in one of them, or drop one)", first, p, c)
		}
		seen[c] = p
		out = append(out, Target{Cluster: c, Source: p, Inventory: inv})
	}
	return out, nil
}

// ignored are the suffixes Ansible skips in an inventory folder.
var ignored = []string{"~", ".orig", ".bak", ".cfg", ".retry", ".pyc", ".pyo", ".md", ".txt", ".rst"}

// dirInventories lists the inventories of dir: its files and folders, in name order.
func dirInventories(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, badInput("read --inventories %s: %v: give a folder holding one inventory (file or folder) per cluster", dir, err)
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || slices.ContainsFunc(ignored, func(s string) bool { return strings.HasSuffix(n, s) }) {
			continue
		}
		out = append(out, filepath.Join(dir, n))
	}
	if len(out) == 0 {
		return nil, badInput("--inventories %s holds no inventory: put one file (or folder) per cluster in it", dir)
	}
	return out, nil
}

func badInput(format string, args ...any) error {
	return fault.Mark(fmt.Errorf(format, args...), fault.ErrBadInput)
}
