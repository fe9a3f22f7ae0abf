package upgrade

import (
	"fmt"
	"strings"
)

// The shell scripts of abort's etcd restore. Each is written for one member (or controller)
// and read by etcd_restore.go; every path kupgrade creates carries the upgrade's uuid, so a
// retry of the same abort finds its own work and another upgrade's is never touched.

// manifestsDir is where the kubelet reads the static pods.
const manifestsDir = "/etc/kubernetes/manifests"

// controlPlane are the static pods stopped, in the order they are put back: etcd first.
var controlPlane = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// restoreMark ends every line the member discovery script prints.
const restoreMark = "kupgrade-etcd-member "

// asideDir is where a controller's static pod manifests wait while etcd is restored.
func asideDir(uuid string) string { return "/etc/kubernetes/kupgrade-etcd-restore-" + uuid }

// snapshotOnMember is where the snapshot is copied on each member.
func snapshotOnMember(uuid string) string { return "/var/lib/kupgrade/etcd-restore-" + uuid + ".db" }

func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// discoverScript reads, without changing anything, what the restore needs on one member:
// etcd's flags (a stacked member's from its etcd.yaml, in the manifests folder or aside; an
// external member's from its systemd unit's environment file), the restore tools there, what
// is aside and the restore mark in the data dir.
func discoverScript(uuid string, stacked bool) string {
	read := `for f in /etc/etcd.env /etc/default/etcd /etc/etcd/etcd.conf; do
  [ -f "$f" ] || continue
  echo "` + restoreMark + `config $f"
  ( set -a; . "$f"; for v in NAME:name INITIAL_CLUSTER:initial-cluster INITIAL_CLUSTER_TOKEN:initial-cluster-token INITIAL_ADVERTISE_PEER_URLS:initial-advertise-peer-urls DATA_DIR:data-dir; do
      eval "x=\${ETCD_${v%%:*}:-}"; [ -z "$x" ] || echo "` + restoreMark + `flag ${v#*:}=$x"; done )
  break
done
systemctl cat etcd >/dev/null 2>&1 && echo "` + restoreMark + `unit etcd"
`
	if stacked {
		read = `src=` + manifestsDir + `/etcd.yaml; [ -f "$src" ] || src=$A/etcd.yaml
if [ -f "$src" ]; then
  echo "` + restoreMark + `config $src"
  sed -n 's/^[[:space:]]*-[[:space:]]*--\([a-z-]*\)=\(.*\)$/` + restoreMark + `flag \1=\2/p' "$src" | tr -d "\"'"
  sed -n 's/^[[:space:]-]*image:[[:space:]]*//p' "$src" | head -n1 | tr -d "\"'" | sed 's/^/` + restoreMark + `image /'
fi
`
	}
	return `A=` + sq(asideDir(uuid)) + `
` + read + `for t in etcdutl etcdctl ctr; do command -v "$t" >/dev/null 2>&1 && echo "` + restoreMark + `tool $t"; done
if ! command -v etcdutl >/dev/null 2>&1 && ! command -v etcdctl >/dev/null 2>&1 && command -v ctr >/dev/null 2>&1; then
  ctr -n k8s.io images ls -q 2>/dev/null | sed 's/^/` + restoreMark + `ctr-image /'
fi
` + asideLines + `exit 0
`
}

// asideLines print, for each manifest in the aside folder $A, its component and image tag.
const asideLines = `tag() { sed -n 's/^[[:space:]-]*image:[[:space:]]*//p' "$1" | head -n1 | tr -d "\"'" | sed 's/@.*//; s/.*\///; s/^[^:]*$//; s/^[^:]*://'; }
if [ -d "$A" ]; then for f in "$A"/*.yaml; do [ -f "$f" ] || continue; c=${f##*/}; echo "` + restoreMark + `aside ${c%.yaml} $(tag "$f")"; done; fi
`

// asideScript prints what asideLines print for the upgrade uuid.
func asideScript(uuid string) string {
	return "A=" + sq(asideDir(uuid)) + "\n" + asideLines + "exit 0\n"
}

// markScript prints the restore mark of the data dir d (after discovery found d).
func markScript(d string) string {
	return `cat ` + sq(d+"/kupgrade-restored") + ` 2>/dev/null | sed 's/^/` + restoreMark + `mark /'; exit 0`
}

// stopScript moves a controller's static pod manifests aside (those still in place) and waits
// for etcd and the API server to stop; on an external member it stops etcd's unit.
func stopScript(uuid string, controller, etcdUnit bool) string {
	var b strings.Builder
	b.WriteString("set -eu\n")
	if controller {
		fmt.Fprintf(&b, "A=%s m=%s\nmkdir -p \"$A\"\nfor c in %s; do\n", sq(asideDir(uuid)), manifestsDir, strings.Join(controlPlane, " "))
		b.WriteString(`  [ -f "$m/$c.yaml" ] || continue
  if [ -e "$A/$c.yaml" ]; then echo "both $m/$c.yaml and $A/$c.yaml exist: keep the one to run in $A and move the other away, then abort again" >&2; exit 1; fi
  mv "$m/$c.yaml" "$A/$c.yaml"; echo "moved $m/$c.yaml aside to $A"
done
if command -v crictl >/dev/null 2>&1; then
  i=0
  while [ -n "$(crictl ps -q --name '^(etcd|kube-apiserver)$' 2>/dev/null)" ]; do
    i=$((i + 1)); [ "$i" -lt 120 ] || { echo "etcd or kube-apiserver still runs 120s after its manifest was moved aside to $A" >&2; exit 1; }
    sleep 1
  done
fi
`)
	}
	if etcdUnit {
		b.WriteString("systemctl stop etcd\n! systemctl is-active --quiet etcd || { echo 'etcd.service is still active after systemctl stop etcd' >&2; exit 1; }\necho 'stopped etcd.service'\n")
	}
	b.WriteString("echo stopped\n")
	return b.String()
}

// restoreScript restores member m's data dir from the snapshot copied to it, unless the data
// dir already carries this restore's mark: into a new folder first, then the old data dir is
// kept aside (renamed, never deleted) and the new one takes its name, the mark inside it.
func restoreScript(uuid, sha string, m etcdMember) string {
	return fmt.Sprintf(`set -eu
S=%s want=%s D=%s MARK=%s
N="$D.kupgrade-restore-%s" B="$D.kupgrade-before-%s"
if [ "$(cat "$D/kupgrade-restored" 2>/dev/null)" = "$MARK" ]; then echo "already restored from this snapshot: $D"; exit 0; fi
got=$(sha256sum "$S" | cut -d' ' -f1)
[ "$got" = "$want" ] || { echo "the snapshot copied to $S has sha256 $got, not $want" >&2; exit 1; }
if [ -e "$D" ] && [ -e "$B" ]; then echo "$B exists already and $D was not restored from this snapshot: kupgrade never deletes a data dir; move $B away, then abort again" >&2; exit 1; fi
rm -rf "$N"
%s snapshot restore "$S" --name %s --initial-cluster %s --initial-cluster-token %s --initial-advertise-peer-urls %s --data-dir "$N"
echo "$MARK" > "$N/kupgrade-restored"
if [ -e "$D" ]; then chown -R "$(stat -c %%u:%%g "$D")" "$N"; chmod 700 "$N"; mv "$D" "$B"; echo "kept the old data dir as $B"; fi
mv "$N" "$D"
echo "restored $D from $S"
`, sq(snapshotOnMember(uuid)), sq(sha), sq(m.dataDir), sq(uuid+" "+sha), uuid, uuid,
		m.restoreCommand(uuid), sq(m.name), sq(m.initialCluster), sq(m.token()), sq(m.peerURL))
}

// startScript puts a controller's manifests back from aside, etcd's first; on an external
// member it starts etcd's unit.
func startScript(uuid string, controller, etcdUnit bool) string {
	var b strings.Builder
	b.WriteString("set -eu\n")
	if etcdUnit {
		b.WriteString("systemctl start etcd\necho 'started etcd.service'\n")
	}
	if controller {
		fmt.Fprintf(&b, "A=%s m=%s\nfor c in %s; do\n", sq(asideDir(uuid)), manifestsDir, strings.Join(controlPlane, " "))
		b.WriteString(`  [ -f "$A/$c.yaml" ] || continue
  mv "$A/$c.yaml" "$m/$c.yaml"; echo "put $m/$c.yaml back"
done
rmdir "$A" 2>/dev/null || true
`)
	}
	b.WriteString("echo started\n")
	return b.String()
}

// healthScript waits, once every member was started, for etcd to answer: through the API
// server's /readyz/etcd on a controller with kubectl and admin.conf, for etcd.service to be
// active on an external member.
func healthScript(_ string, controller, etcdUnit bool) string {
	var b strings.Builder
	b.WriteString("set -eu\n")
	if etcdUnit {
		b.WriteString("systemctl is-active --quiet etcd || { echo 'etcd.service is not active after systemctl start etcd' >&2; exit 1; }\n")
	}
	if controller {
		b.WriteString(`K="kubectl --kubeconfig /etc/kubernetes/admin.conf --request-timeout=5s"
if command -v kubectl >/dev/null 2>&1 && [ -r /etc/kubernetes/admin.conf ]; then
  i=0
  until [ "$($K get --raw /readyz/etcd 2>/dev/null)" = ok ]; do
    i=$((i + 1)); [ "$i" -lt 100 ] || { echo "the API server's /readyz/etcd did not answer ok within 300s after the manifests were put back" >&2; exit 1; }
    sleep 3
  done
  echo "etcd healthy: /readyz/etcd ok"
fi
`)
	}
	b.WriteString("echo healthy\n")
	return b.String()
}
