package health

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// EtcdConfigScript reads, on a controller, only kubeadm's ClusterConfiguration: where etcd is
// (ReadEtcdConfig reads its output).
const EtcdConfigScript = runner + kubeadmConfigLine

// ReadEtcdConfig reads EtcdConfigScript's output.
func ReadEtcdConfig(out string) (EtcdConfig, error) {
	s, ok := sections(out)["kubeadm-config"]
	if !ok || s.rc != 0 {
		return EtcdConfig{}, fmt.Errorf("read kubeadm's ClusterConfiguration (kubectl -n kube-system get configmap kubeadm-config): exit status %d: %s", s.rc, firstLine(s.body))
	}
	return ParseEtcdConfig(s.body)
}

// SnapshotPath is where EtcdSnapshotScript saves the snapshot on the controller: for stacked
// etcd in its data directory's parent, which kubeadm mounts into the etcd container at the same
// path (so the container's etcdctl writes where the host reads); for external etcd under
// kupgrade's own directory.
func SnapshotPath(e EtcdConfig) string {
	if e.External {
		return "/var/lib/kupgrade/etcd-snapshot.db"
	}
	return "/var/lib/etcd/kupgrade-snapshot.db"
}

// EtcdSnapshotScript saves an etcd snapshot at path (SnapshotPath(e)) with etcdctl (found as EtcdScript
// finds it), then reads its revision and hash (etcdutl snapshot status, or etcdctl's where
// there is no etcdutl), its sha256 and its size. ReadSnapshot reads the output.
func EtcdSnapshotScript(e EtcdConfig, path string) string {
	p := shellQuote(path)
	return etcdctlPrelude + `p=` + p + `
mkdir -p "$(dirname "$p")" && rm -f "$p" "$p.part"
run save $E ` + etcdctlArgs(e) + ` snapshot save "$p"
[ -s "$p" ] || exit 0
U="$X etcdutl"
if [ -z "$X" ] && ! command -v etcdutl >/dev/null; then U="$E"; fi
run status $U snapshot status "$p" -w json
run sha256 sha256sum "$p"
run size stat -c %s "$p"
`
}

// SnapshotFacts are what EtcdSnapshotScript found about the snapshot it saved on the controller.
type SnapshotFacts struct {
	Path     string
	Revision int64
	Hash     int64
	Keys     int64
	SHA256   string
	Size     int64
}

// ErrNoEtcdctl is ReadSnapshot's error when the controller has no etcdctl, nor an etcd
// container to run one in: no snapshot could be tried.
var ErrNoEtcdctl = errors.New("no etcdctl on the controller, nor an etcd container")

// ReadSnapshot reads EtcdSnapshotScript's output; the error names the command that failed and
// what it said (ErrNoEtcdctl when there was no etcdctl to run).
func ReadSnapshot(out, path string) (SnapshotFacts, error) {
	secs := sections(out)
	for _, name := range []string{"etcdctl", "save", "status", "sha256", "size"} {
		s, ok := secs[name]
		switch {
		case name == "etcdctl" && !ok:
			continue
		case name == "etcdctl":
			return SnapshotFacts{}, fmt.Errorf("%w: %s", ErrNoEtcdctl, lastLine(s.body))
		case !ok:
			return SnapshotFacts{}, fmt.Errorf("etcd snapshot: no %s step ran (the save left no file at %s)", name, path)
		case s.rc != 0:
			return SnapshotFacts{}, fmt.Errorf("etcd snapshot %s: exit status %d: %s", name, s.rc, lastLine(s.body))
		}
	}
	var st struct {
		Hash     int64 `json:"hash"`
		Revision int64 `json:"revision"`
		TotalKey int64 `json:"totalKey"`
	}
	if err := json.Unmarshal([]byte(jsonPart(secs["status"].body, "{")), &st); err != nil {
		return SnapshotFacts{}, fmt.Errorf("etcd snapshot status: decode %q: %w", firstLine(secs["status"].body), err)
	}
	sum, _, _ := strings.Cut(strings.TrimSpace(secs["sha256"].body), " ")
	size, err := strconv.ParseInt(strings.TrimSpace(secs["size"].body), 10, 64)
	if err != nil || len(sum) != 64 || st.Revision <= 0 {
		return SnapshotFacts{}, fmt.Errorf("etcd snapshot: sha256 %q, size %q, revision %d: not a snapshot's", sum, secs["size"].body, st.Revision)
	}
	return SnapshotFacts{Path: path, Revision: st.Revision, Hash: st.Hash, Keys: st.TotalKey, SHA256: sum, Size: size}, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}
