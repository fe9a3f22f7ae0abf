package inventory

import (
	"github.com/kupgrade/kupgrade/internal/testtree"

	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (paths relative to a fresh folder) and returns the path of the
// inventory.yml among them.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	return filepath.Join(testtree.Write(t, files), "inventory.yml")
}

func mustLoad(t *testing.T, files map[string]string) *Inventory {
	t.Helper()
	inv, err := Load(writeTree(t, files))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return inv
}

// relErr is the error message with the temporary folder removed, so tests compare what a user
// would read when running from the inventory's folder.
func relErr(path string, err error) string {
	return strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), "")
}

func hostNames(hosts []*Host) []string {
	var out []string
	for _, h := range hosts {
		out = append(out, h.Name)
	}
	return out
}

func fmtInv(format, hostVars string) string { return fmt.Sprintf(format, hostVars) }

func equalJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
