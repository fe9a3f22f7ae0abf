package health

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/testtree"
)

// TestEtcdSnapshotScript runs the script with sh against fake etcdctl and etcdutl on PATH: the
// facts read back are the file's, and every failure names the command and what it said.
func TestEtcdSnapshotScript(t *testing.T) {
	cases := []struct {
		name, etcdctl, etcdutl, wantErr string
		wantRev                         int64
	}{
		{name: "saved", wantRev: 1234,
			etcdctl: `for a; do p=$a; done; printf 'snapshot-bytes' > "$p"; echo "Snapshot saved at $p"`,
			etcdutl: `echo "Deprecated: a warning first"; echo '{"hash":99,"revision":1234,"totalKey":7,"totalSize":4096}'`},
		{name: "save fails", wantErr: "etcd snapshot save: exit status 1: Error: context deadline exceeded",
			etcdctl: `echo "Error: context deadline exceeded" >&2; exit 1`},
		{name: "status fails", wantErr: "etcd snapshot status: exit status 2: Error: invalid database",
			etcdctl: `for a; do p=$a; done; printf 'x' > "$p"`, etcdutl: `echo "Error: invalid database" >&2; exit 2`},
		{name: "no etcdctl", wantErr: "no etcdctl on the controller, nor an etcd container: etcdctl: not found on this host, nor an etcd container"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"bin/.keep": ""}
			if c.etcdctl != "" {
				files["bin/etcdctl"] = "#!/bin/sh\n" + c.etcdctl + "\n"
			}
			if c.etcdutl != "" {
				files["bin/etcdutl"] = "#!/bin/sh\n" + c.etcdutl + "\n"
			}
			dir := testtree.Write(t, files)
			bin := filepath.Join(dir, "bin")
			for _, f := range []string{"etcdctl", "etcdutl"} {
				os.Chmod(filepath.Join(bin, f), 0o755)
			}
			path := filepath.Join(dir, "var", "snap.db")
			cmd := exec.Command("/bin/sh", "-c", EtcdSnapshotScript(EtcdConfig{}, path))
			cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin"}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("script: %v\n%s", err, out)
			}
			got, err := ReadSnapshot(string(out), path)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("ReadSnapshot: %+v, %v; want an error naming %q", got, err, c.wantErr)
				}
				return
			}
			data, _ := os.ReadFile(path)
			sum := sha256.Sum256(data)
			if err != nil || got.Revision != c.wantRev || got.Hash != 99 || got.Size != int64(len(data)) || got.SHA256 != hex.EncodeToString(sum[:]) || got.Path != path {
				t.Fatalf("ReadSnapshot = %+v, %v; want revision %d and the file's size and sha256", got, err, c.wantRev)
			}
		})
	}
}
