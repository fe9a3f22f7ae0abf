package health

import (
	"strconv"
	"strings"
)

// sectionMark starts each part of a script's output: "### kupgrade-health NAME rc=N".
const sectionMark = "### kupgrade-health "

// runner is the shell function the scripts share: run NAME CMD... prints the mark with CMD's
// exit status, then its output (stderr included).
const runner = `run() { n=$1; shift; o=$("$@" 2>&1); echo "` + sectionMark + `$n rc=$?"; printf '%s\n' "$o"; }
K="kubectl --kubeconfig /etc/kubernetes/admin.conf --request-timeout=20s"
`

// ClusterScript gathers, on one controller as root, what the cluster-wide checks judge: nodes,
// pods and budgets, the API server's deprecated-API counters, kubeadm's ClusterConfiguration
// and the API server's view of etcd. Without kubectl or admin.conf it says so and runs nothing.
const ClusterScript = runner + `notrun() { echo "` + sectionMark + `nodes rc=127"; echo "$1"; exit 0; }
command -v kubectl >/dev/null || notrun "kubectl: not found"
[ -r /etc/kubernetes/admin.conf ] || notrun "/etc/kubernetes/admin.conf: not found"
run nodes $K get nodes -o json
run pods $K get pods -A -o json
run pdbs $K get pdb -A -o json
` + metricsLines + kubeadmConfigLine + `run readyz-etcd $K get --raw /readyz/etcd
`

// metricsLines read the apiserver_requested_deprecated_apis series of every API server: the
// metric is each API server's own, and a client that called a removed API through one
// controller's API server shows there alone, while admin.conf's endpoint (a load balancer, a
// name every controller answers to) reaches any one of them. Each is asked at the address kubeadm
// annotates its static pod with (kubeadm puts that address in the API server's certificate); a
// cluster whose pods lack the annotation is asked through admin.conf's endpoint.
const metricsLines = `deprecated() {
  m=$($K ${1:+"--server=https://$1"} get --raw /metrics 2>&1) || { echo "API server ${1:-of admin.conf}: $(printf '%s\n' "$m" | head -1)"; return 1; }
  printf '%s\n' "$m" | grep '^apiserver_requested_deprecated_apis' || true
}
metrics() {
  eps=$($K -n kube-system get pods -l component=kube-apiserver -o jsonpath='{range .items[*]}{.metadata.annotations.kubeadm\.kubernetes\.io/kube-apiserver\.advertise-address\.endpoint} {end}' 2>&1) || { printf '%s\n' "$eps"; return 1; }
  [ -n "$(echo $eps)" ] || { deprecated ""; return; }
  all=""
  for e in $eps; do o=$(deprecated "$e") || { printf '%s\n' "$o"; return 1; }; all="$all$o
"; done
  printf '%s' "$all"
}
run metrics metrics
`

// kubeadmConfigLine reads kubeadm's ClusterConfiguration (where etcd is).
const kubeadmConfigLine = `run kubeadm-config $K -n kube-system get configmap kubeadm-config -o 'jsonpath={.data.ClusterConfiguration}'
`

// HostScript gathers one controller's certificates: every kubeadm-managed certificate file
// under /etc/kubernetes/pki and the client certificates embedded in kubeadm's kubeconfig files,
// each as "FILE notAfter=DATE" (openssl).
const HostScript = runner + `certs() {
  for f in /etc/kubernetes/pki/*.crt /etc/kubernetes/pki/etcd/*.crt; do
    [ -f "$f" ] && echo "$f $(openssl x509 -noout -enddate -in "$f" 2>&1 | head -1)"
  done
  for c in admin.conf super-admin.conf controller-manager.conf scheduler.conf; do
    f=/etc/kubernetes/$c; [ -f "$f" ] || continue
    d=$(sed -n 's/^ *client-certificate-data: *//p' "$f" | head -1)
    [ -n "$d" ] && echo "$f $(printf %s "$d" | base64 -d | openssl x509 -noout -enddate 2>&1 | head -1)"
  done
  return 0
}
command -v openssl >/dev/null || { echo "` + sectionMark + `certs rc=127"; echo "openssl: not found"; exit 0; }
run certs certs
`

// EtcdScript asks etcd, from a controller, for its members and each member's health with
// etcdctl: stacked etcd (no endpoints) through the static pod's certificates on 127.0.0.1, and
// with the etcd container's own etcdctl when the host has none; external etcd at the endpoints
// and with the certificates kubeadm's ClusterConfiguration names.
func EtcdScript(e EtcdConfig) string {
	args := etcdctlArgs(e)
	return etcdctlPrelude + `run members $E ` + args + ` member list -w json
run health $E ` + args + ` endpoint health --cluster -w json
`
}

// etcdctlPrelude finds etcdctl: the host's, else the etcd container's through crictl ($X is
// then the prefix that runs a command in that container, "" on the host). Without either it
// prints an etcdctl section with rc=127 and stops.
const etcdctlPrelude = runner + `E=etcdctl X=""
if ! command -v etcdctl >/dev/null; then
  id=$(crictl ps -q --name '^etcd$' 2>/dev/null | head -1)
  if [ -z "$id" ]; then echo "` + sectionMark + `etcdctl rc=127"; echo "etcdctl: not found on this host, nor an etcd container"; exit 0; fi
  X="crictl exec $id" E="$X etcdctl"
fi
export ETCDCTL_API=3
`

// etcdctlArgs are etcdctl's endpoint and certificate flags for e.
func etcdctlArgs(e EtcdConfig) string {
	if !e.External {
		return "--endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt" +
			" --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key"
	}
	args := "--endpoints=" + shellQuote(strings.Join(e.Endpoints, ","))
	for _, f := range [][2]string{{"--cacert", e.CAFile}, {"--cert", e.CertFile}, {"--key", e.KeyFile}} {
		if f[1] != "" {
			args += " " + f[0] + "=" + shellQuote(f[1])
		}
	}
	return args
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// section is one part of a script's output.
type section struct {
	rc   int
	body string
}

// sections splits a script's output at its marks.
func sections(out string) map[string]section {
	secs := map[string]section{}
	name, cur := "", section{}
	var body strings.Builder
	flush := func() {
		if name != "" {
			cur.body = strings.TrimSuffix(body.String(), "\n")
			secs[name] = cur
		}
		body.Reset()
	}
	for _, line := range strings.SplitAfter(out, "\n") {
		rest, ok := strings.CutPrefix(line, sectionMark)
		if !ok {
			body.WriteString(line)
			continue
		}
		flush()
		f := strings.Fields(rest)
		name, cur = "", section{rc: -1}
		if len(f) == 2 {
			name = f[0]
			cur.rc, _ = strconv.Atoi(strings.TrimPrefix(f[1], "rc="))
		}
	}
	flush()
	return secs
}

// Serves names the checks a script of this package gathers facts for, for the task line that
// reports it ("nodes-ready, control-plane, kubelet-skew, removed-apis, drain" for ClusterScript).
func Serves(script string) string {
	switch {
	case script == ClusterScript:
		return strings.Join([]string{CheckNodes, CheckControlPlane, CheckKubeletSkew, CheckRemovedAPIs, CheckDrain}, ", ")
	case script == HostScript:
		return CheckCerts
	case strings.HasPrefix(script, etcdctlPrelude):
		return CheckEtcd
	case strings.Contains(script, sectionMark+`mgr rc=0`):
		return CheckPackages
	}
	return "health"
}
