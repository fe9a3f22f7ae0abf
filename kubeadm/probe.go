package kubeadm

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

	"github.com/kupgrade/kupgrade/internal/fencefile"
)

// Exec runs one shell script on a host (env set for the script, as root where the caller's
// transport can) and returns its exit status and output. kubeadm never talks to hosts itself: the
// runner hands it an Exec over its connection, tests run sh locally.
type Exec = func(ctx context.Context, script string, env map[string]string) (rc int, stdout, stderr string, err error)

// Prober reads the kubelet config, manifests and kubeadm folders below Root ("" or "/" is the
// host's real root; tests point it at a temporary folder).
type Prober struct {
	Root string
	// Versions makes the probe also report what the host's kubelet and kubeadm print
	// (Snapshot.Installed), in the same command.
	Versions bool
}

// rootVar carries Root to the script, so that no path is ever spliced into shell text.
const rootVar = "KUPGRADE_PROBE_ROOT"

// Probe runs the probe script through exec (one remote command) and parses its report. An error
// means there is no snapshot: the command did not run, failed, or was cut short.
func (p Prober) Probe(ctx context.Context, exec Exec) (Snapshot, error) {
	script, env := p.Command()
	rc, stdout, stderr, err := exec(ctx, script, env)
	if err != nil {
		return Snapshot{}, fmt.Errorf("run kubelet-config probe: %w", err)
	}
	if rc != 0 {
		return Snapshot{}, fmt.Errorf("run kubelet-config probe: exit %d: %s", rc, lastLine(stderr))
	}
	s, err := ParseReport([]byte(stdout))
	if err != nil {
		return Snapshot{}, err
	}
	s.Taken = time.Now().UTC()
	return s, nil
}

// Command is the probe script and the environment it reads. It prints one record per line,
// fields separated by tabs, the path last:
//
//	config <sha256> <mtime> | config missing
//	manifest <component> <image line>
//	dir upgraded|backup <mtime> <path>
//	dir kubelet <mtime> <has config.yaml 0|1> <path>
//	fence <busy 0|1> <stamp line|none|torn>   (only when the host has a fence)
//	packages <install running 0|1> <dpkg interrupted 0|1> <packages unheld>   (only when one
//	                                                          of them is found; see Packages)
//	kubelet <exit> <first line of kubelet --version>   (only with Versions)
//	kubeadm <exit> <first line of kubeadm version -o short>   (only with Versions; exit -1: not
//	                                                          run, another kupgrade holds the fence)
//	end
func (p Prober) Command() (string, map[string]string) {
	root := strings.TrimRight(p.Root, "/")
	var env map[string]string
	r := `r=`
	if root != "" {
		env, r = map[string]string{rootVar: root}, `r=$`+rootVar
	}
	return r + `
t=$(printf '\t')
c="$r` + configPath + `"
if [ -f "$c" ]; then
  s=$(sha256sum "$c") || exit 1
  echo "config$t${s%% *}$t$(stat -c %Y "$c")"
else
  echo "config${t}missing"
fi
for m in ` + strings.Join(staticPods, " ") + `; do
  f="$r` + manifestsDir + `/$m.yaml"
  [ -f "$f" ] || continue
  echo "manifest$t$m$t$(grep -m1 'image:' "$f")"
done
for d in "$r"` + tmpDir + `/kubeadm-upgraded-manifests* "$r"` + tmpDir + `/kubeadm-backup-manifests-* "$r"` + tmpDir + `/kubeadm-kubelet-config*; do
  [ -d "$d" ] || continue
  p=${d#"$r"}
  case $p in
  */kubeadm-upgraded-manifests*) echo "dir${t}upgraded$t$(stat -c %Y "$d")$t$p" ;;
  */kubeadm-backup-manifests-*) echo "dir${t}backup$t$(stat -c %Y "$d")$t$p" ;;
  *) h=0; [ -f "$d/config.yaml" ] && h=1; echo "dir${t}kubelet$t$(stat -c %Y "$d")$t$h$t$p" ;;
  esac
done
f="$r` + fencefile.Dir + `"
b=0; h=0; kr=0
[ -f "$f/` + fencefile.LockFile + `" ] && h=1
` + p.lockedRead() + `if [ $h = 1 ]; then
  if [ $kr = 0 ] && command -v flock >/dev/null 2>&1; then flock -n "$f/` + fencefile.LockFile + `" true || b=1; fi
  s=` + noStamp + `
  if [ -e "$f/` + fencefile.StampFile + `" ]; then IFS= read -r s < "$f/` + fencefile.StampFile + `" || s=` + tornStamp + `; fi
  echo "fence$t$b$t$s"
fi
` + packagesScript + p.versions() + `echo end
`, env
}

// lockedRead runs `kubeadm version` under the fence's lock (flock -n -E): a fenced command cannot
// start while it runs, and one that holds the lock makes flock exit lockBusy without starting
// kubeadm. Checking the lock first and reading after would leave a window in which a step starts
// (and replaces or runs kubeadm) unseen. The lock file is made when the host has none yet (as the
// fence makes it); where it cannot be made, or flock is missing, kubeadm is read unlocked.
func (p Prober) lockedRead() string {
	if !p.Versions {
		return ""
	}
	lock := `"$f/` + fencefile.LockFile + `"`
	return `if command -v flock >/dev/null 2>&1 && { [ $h = 1 ] || { mkdir -p -m 700 "$f" && : >>` + lock + `; } 2>/dev/null; }; then
  kv=$( { flock -n -E ` + lockBusy + ` ` + lock + ` kubeadm version -o short; } 2>/dev/null ); krc=$?; kr=1
  [ $krc = ` + lockBusy + ` ] && { b=1; kv=; krc=-1; }
fi
`
}

// lockBusy is flock's exit status when the fence is held: kubeadm exits 0 or 1.
const lockBusy = "75"

func (p Prober) versions() string {
	if p.Versions {
		return versionsScript
	}
	return ""
}

type datedDir struct {
	mtime int64
	path  string
}

// ParseReport reads the probe script's report. A report without its final "end" line is refused:
// the command was cut short and a partial snapshot would mislead the classification. Taken stays
// zero: the caller knows when the script ran.
func ParseReport(out []byte) (Snapshot, error) {
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
		case f[0] == "kubelet" || f[0] == "kubeadm":
			if !parseInstalled(&s.Installed, f) {
				return Snapshot{}, bad
			}
		case f[0] == "manifest" && len(f) == 3:
			s.Manifests[f[1]] = imageTag(f[2])
		case f[0] == "packages" && len(f) == 4:
			s.Packages = parsePackages(f[1:])
		case f[0] == "fence" && len(f) >= 3 && (f[1] == "0" || f[1] == "1"):
			s.Fence = parseStamp(f[1] == "1", strings.Join(f[2:], "\t")) // a tab in a stamp damages it
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

// lastLine is the last line of a command's output: the one that says why it failed.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
