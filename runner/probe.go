package runner

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Snapshot is what kubeadm's progress looks like on one host's disk (STATES.md "The kubelet-config
// check"). Paths are the host's paths; lists of folders are newest first.
type Snapshot struct {
	// Taken is when the probe ran (UTC); zero means "no snapshot".
	Taken        time.Time `json:"taken"`
	ConfigExists bool      `json:"config_exists"`
	ConfigSHA256 string    `json:"config_sha256,omitempty"`
	ConfigMtime  time.Time `json:"config_mtime,omitzero"`
	// Manifests maps a static-pod component (kube-apiserver, kube-controller-manager,
	// kube-scheduler, etcd) to its image tag; components without a manifest are absent.
	Manifests             map[string]string `json:"manifests"`
	UpgradedManifestsDirs []string          `json:"upgraded_manifests_dirs"`
	BackupDirs            []string          `json:"backup_dirs"`
	KubeletConfigBackups  []KubeletBackup   `json:"kubelet_config_backups"`
}

// KubeletBackup is one /etc/kubernetes/tmp/kubeadm-kubelet-config* folder.
type KubeletBackup struct {
	Path      string `json:"path"`
	HasConfig bool   `json:"has_config"`
}

// controlPlane are the components whose lowest tag is the control-plane version (KUBEADM.md).
var controlPlane = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// ControlPlaneVersion is the lowest image tag of the control-plane manifests ("" when none).
func (s Snapshot) ControlPlaneVersion() string {
	low := ""
	for _, c := range controlPlane {
		if t, ok := s.Manifests[c]; ok && (low == "" || compareVersions(t, low) < 0) {
			low = t
		}
	}
	return low
}

// Prober reads the kubelet config, manifests and kubeadm folders below Root ("" or "/" is the
// host's real root; tests point it at a temporary folder).
type Prober struct {
	Root string
}

// Probe runs the probe against the host's real paths: one remote command.
func Probe(ctx context.Context, c Conn, become bool) (Snapshot, error) {
	return Prober{}.Probe(ctx, c, become)
}

// Probe runs one remote shell script and parses its report.
func (p Prober) Probe(ctx context.Context, c Conn, become bool) (Snapshot, error) {
	var out, errb bytes.Buffer
	rc, err := c.Run(ctx, wrap(p.script(), nil, become, "root"), nil, &out, &errb)
	if err != nil {
		return Snapshot{}, fmt.Errorf("run kubelet-config probe: %w", err)
	}
	if rc != 0 {
		return Snapshot{}, fmt.Errorf("run kubelet-config probe: exit %d: %s", rc, lastLine(errb.String()))
	}
	s, err := parseProbe(out.Bytes())
	if err != nil {
		return Snapshot{}, err
	}
	s.Taken = time.Now().UTC()
	return s, nil
}

// script prints one record per line, fields separated by tabs, the path last:
//
//	config <sha256> <mtime> | config missing
//	manifest <component> <image line>
//	dir upgraded|backup <mtime> <path>
//	dir kubelet <mtime> <has config.yaml 0|1> <path>
//	end
func (p Prober) script() string {
	root := strings.TrimRight(p.Root, "/")
	return `r=` + quote(root) + `
t=$(printf '\t')
c="$r/var/lib/kubelet/config.yaml"
if [ -f "$c" ]; then
  s=$(sha256sum "$c") || exit 1
  echo "config$t${s%% *}$t$(stat -c %Y "$c")"
else
  echo "config${t}missing"
fi
for m in etcd kube-apiserver kube-controller-manager kube-scheduler; do
  f="$r/etc/kubernetes/manifests/$m.yaml"
  [ -f "$f" ] || continue
  echo "manifest$t$m$t$(grep -m1 'image:' "$f")"
done
for d in "$r"/etc/kubernetes/tmp/kubeadm-upgraded-manifests* "$r"/etc/kubernetes/tmp/kubeadm-backup-manifests-* "$r"/etc/kubernetes/tmp/kubeadm-kubelet-config*; do
  [ -d "$d" ] || continue
  p=${d#"$r"}
  case $p in
  */kubeadm-upgraded-manifests*) echo "dir${t}upgraded$t$(stat -c %Y "$d")$t$p" ;;
  */kubeadm-backup-manifests-*) echo "dir${t}backup$t$(stat -c %Y "$d")$t$p" ;;
  *) h=0; [ -f "$d/config.yaml" ] && h=1; echo "dir${t}kubelet$t$(stat -c %Y "$d")$t$h$t$p" ;;
  esac
done
echo end
`
}

type datedDir struct {
	mtime int64
	path  string
}

// parseProbe reads the script's report. A report without its final "end" line is refused: the
// command was cut short and a partial snapshot would mislead the classification.
func parseProbe(out []byte) (Snapshot, error) {
	s := Snapshot{Manifests: map[string]string{}}
	var upgraded, backups, kubelet []datedDir
	has := map[string]bool{}
	ended := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for line := 1; sc.Scan(); line++ {
		f := strings.Split(sc.Text(), "\t")
		bad := fmt.Errorf("parse kubelet-config probe: line %d: %q", line, sc.Text())
		switch {
		case f[0] == "end" && len(f) == 1:
			ended = true
		case f[0] == "config" && len(f) == 2 && f[1] == "missing":
		case f[0] == "config" && len(f) == 3:
			sec, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || len(f[1]) != 64 {
				return Snapshot{}, bad
			}
			s.ConfigExists, s.ConfigSHA256, s.ConfigMtime = true, f[1], time.Unix(sec, 0).UTC()
		case f[0] == "manifest" && len(f) == 3:
			s.Manifests[f[1]] = imageTag(f[2])
		case f[0] == "dir" && (len(f) == 4 || len(f) == 5 && f[1] == "kubelet"):
			sec, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				return Snapshot{}, bad
			}
			d := datedDir{sec, f[len(f)-1]}
			switch f[1] {
			case "upgraded":
				upgraded = append(upgraded, d)
			case "backup":
				backups = append(backups, d)
			case "kubelet":
				kubelet = append(kubelet, d)
				has[d.path] = f[3] == "1"
			default:
				return Snapshot{}, bad
			}
		default:
			return Snapshot{}, bad
		}
	}
	if !ended {
		return Snapshot{}, fmt.Errorf("parse kubelet-config probe: report cut short (no end line)")
	}
	s.UpgradedManifestsDirs = newestFirst(upgraded)
	s.BackupDirs = newestFirst(backups)
	s.KubeletConfigBackups = []KubeletBackup{}
	for _, p := range newestFirst(kubelet) {
		s.KubeletConfigBackups = append(s.KubeletConfigBackups, KubeletBackup{Path: p, HasConfig: has[p]})
	}
	return s, nil
}

// newestFirst orders by mtime, then by name: kubeadm's names carry a timestamp, which breaks
// ties between folders made within the same second.
func newestFirst(ds []datedDir) []string {
	slices.SortFunc(ds, func(a, b datedDir) int {
		if c := cmp.Compare(b.mtime, a.mtime); c != 0 {
			return c
		}
		return strings.Compare(b.path, a.path)
	})
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.path
	}
	return out
}

// imageTag takes `    image: registry.k8s.io/kube-apiserver:v1.29.3@sha256:...` to "v1.29.3".
func imageTag(line string) string {
	img := strings.TrimSpace(line)
	img = strings.TrimPrefix(img, "-")
	img = strings.TrimSpace(img)
	img = strings.TrimPrefix(img, "image:")
	img = strings.Trim(strings.TrimSpace(img), `"'`)
	if i := strings.IndexByte(img, '@'); i >= 0 {
		img = img[:i]
	}
	i := strings.LastIndexByte(img, ':')
	if i < 0 || strings.LastIndexByte(img, '/') > i {
		return ""
	}
	return img[i+1:]
}

// compareVersions orders tags like v1.29.3 numerically; tags that are not versions sort by text.
func compareVersions(a, b string) int {
	pa, oka := versionParts(a)
	pb, okb := versionParts(b)
	if !oka || !okb {
		return strings.Compare(a, b)
	}
	return slices.Compare(pa, pb)
}

func versionParts(v string) ([]int, bool) {
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	var out []int
	for p := range strings.SplitSeq(v, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, len(out) > 0
}
