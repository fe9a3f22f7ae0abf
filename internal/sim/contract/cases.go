package contract

import (
	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/internal/sim"
)

// Next is the patch release a case upgrades to.
const Next = "v1.29.5"

// The disks the cases leave most often: nothing changed; everything upgraded to Next.
var (
	untouched = Disk{Tags: From, KubeletConfig: From}
	upgraded  = Disk{Tags: Next, KubeletConfig: Next, Backups: []string{"kubeadm-backup-manifests", "kubeadm-kubelet-config"}}
)

const (
	apply      = "kubeadm upgrade apply " + Next + " -y"
	success    = `^\[upgrade/successful\] SUCCESS! Your cluster was upgraded to "v1\.29\.5"\. Enjoy!$`
	injected   = `failure injected by kupgrade[- ](lab|sim)`
	labKubelet = "/usr/local/sbin/kupgrade-lab-kubelet"
	labKubeadm = "/usr/local/sbin/kupgrade-lab-kubeadm"
	// uidCmd reads the cluster's identity as upgrade's clusterUIDScript does.
	uidCmd = `kubectl --kubeconfig /etc/kubernetes/admin.conf --request-timeout=10s get namespace kube-system -o 'jsonpath={.metadata.uid}'`
)

// with is d with its fault flag set.
func (d Disk) with(fault bool) Disk { d.Fault = fault; return d }

// Cases are the contract's cases.
var Cases = []Case{
	{Name: "kubeadm version short", Setup: Setup{Kubeadm: Next}, Command: "kubeadm version -o short",
		Want: Want{Out: []string{`^v1\.29\.5$`}, Disk: untouched}},
	{Name: "kubeadm version", Setup: Setup{Kubeadm: Next}, Command: "kubeadm version",
		Want: Want{Out: []string{`^kubeadm version: &version\.Info\{Major:"1", Minor:"29", GitVersion:"v1\.29\.5"`}, Disk: untouched}},
	{Name: "kubelet version", Command: "kubelet --version", Want: Want{Out: []string{`^Kubernetes v1\.29\.4$`}, Disk: untouched}},
	{Name: "kubelet install and restart", Command: labKubelet + " install " + Next + " && " + labKubelet + " restart && kubelet --version",
		Want: Want{Out: []string{`^kubelet v1\.29\.5 installed$`, `^kubelet restarted, running v1\.29\.5$`, `^Kubernetes v1\.29\.5$`}, Disk: untouched}},
	{Name: "kubelet install of a bad version", Command: labKubelet + " install 1.29.5",
		Want: Want{Status: 2, Out: []string{`^kupgrade-lab-kubelet: bad version "1\.29\.5" \(want vX\.Y\.Z\)$`}, Disk: untouched}},
	{Name: "kubelet restart with a stale node status", Setup: Setup{Fault: &sim.Fault{Phase: sim.PhaseKubeletStatus, Action: sim.Stale, Once: true}},
		Command: labKubelet + " install " + Next + " && " + labKubelet + " restart && kubectl get nodes -o json",
		Want:    Want{Out: []string{`^kubelet restarted, running v1\.29\.5$`, `"kubeletVersion": ?"v1\.29\.4"`}, Disk: untouched}},
	{Name: "kubelet restart posts its status", Command: labKubelet + " install " + Next + " && " + labKubelet + " restart && kubectl get nodes -o json",
		Want: Want{Out: []string{`"kubeletVersion": ?"v1\.29\.5"`}, Disk: untouched}},
	{Name: "kubeadm install", Setup: Setup{Kubeadm: Next}, Command: labKubeadm + " install v1.29.4 && kubeadm version -o short",
		Want: Want{Out: []string{`^kubeadm v1\.29\.4 installed$`, `^v1\.29\.4$`}, Disk: untouched}},
	{Name: "kubeadm install of a bad version", Command: labKubeadm + " install 1.29.5",
		Want: Want{Status: 2, Out: []string{`^kupgrade-lab-kubeadm: bad version "1\.29\.5" \(want vX\.Y\.Z\)$`}, Disk: untouched}},
	{Name: "apply", Command: apply, Want: Want{Out: []string{success,
		`^\[upgrade/versions\] Cluster version: v1\.29\.4$`,
		`^\[upgrade/staticpods\] Component "kube-apiserver" upgraded successfully!$`,
		`^\[kubelet-start\] Writing kubelet configuration to file "/var/lib/kubelet/config\.yaml"$`}, Disk: upgraded}},
	{Name: "apply again", Setup: Setup{Version: Next}, Command: apply, Want: Want{Out: []string{success,
		`^\[upgrade/staticpods\] Current and new manifests of kube-scheduler are equal, skipping upgrade$`}, Disk: upgraded}},
	{Name: "apply unconfirmed", Command: "kubeadm upgrade apply " + Next + " </dev/null", Want: Want{Status: 1,
		Out: []string{`^won't proceed; the user didn't answer \(Y\|y\) in order to continue$`}, Disk: untouched}},
	{Name: "apply two minors up", Command: "kubeadm upgrade apply v1.31.0 -y", Want: Want{Status: 1, Out: []string{
		`^\t- Specified version to upgrade to "v1\.31\.0" is too high; kubeadm can upgrade only 1 minor version at a time$`,
		`^error execution phase preflight: \[upgrade/version\] version policy refused "v1\.31\.0"$`}, Disk: untouched}},
	{Name: "apply a downgrade", Command: "kubeadm upgrade apply v1.29.3 -y", Want: Want{Status: 1, Out: []string{
		`^\t- Specified version to downgrade to "v1\.29\.3" is lower than the cluster version "v1\.29\.4"`}, Disk: untouched}},
	{Name: "apply an invalid version", Command: "kubeadm upgrade apply 1.30 -y", Want: Want{Status: 1,
		Out: []string{`^\[upgrade/version\] FATAL: unable to parse version "1\.30"$`}, Disk: untouched}},
	{Name: "node on a worker", Setup: Setup{Cluster: Next, Worker: true}, Command: "kubeadm upgrade node", Want: Want{
		Out:  []string{`^\[upgrade\] Skipping phase\. Not a control plane node\.$`, `^\[upgrade\] The configuration for this node was successfully updated!$`},
		Disk: Disk{KubeletConfig: Next, Backups: []string{"kubeadm-kubelet-config"}}}},
	{Name: "node on a controller", Setup: Setup{Cluster: Next}, Command: "kubeadm upgrade node",
		Want: Want{Out: []string{`^\[upgrade/control-plane\] Upgrading your Static Pod-hosted control plane instance to version "v1\.29\.5"\.\.\.$`}, Disk: upgraded}},
	{Name: "late failure after kubelet-config", Setup: Setup{Cluster: Next, Fault: &sim.Fault{Phase: "kubelet-config", Action: sim.Exit}},
		Command: "kubeadm upgrade node", Want: Want{Status: 1, Out: []string{`^error execution phase kubelet-config: ` + injected + ` \(exit status 1\)$`}, Disk: upgraded.with(true)}},
	{Name: "preflight exit", Setup: Setup{Fault: &sim.Fault{Phase: "preflight", Before: true, Action: sim.Exit, Status: 3, Check: "Swap"}},
		Command: apply, Want: Want{Status: 3, Out: []string{`^\t\[ERROR Swap\]: ` + injected + `$`, `^error execution phase preflight: ` + injected + ` \(exit status 3\)$`}, Disk: untouched.with(true)}},
	{Name: "config exit", Setup: Setup{Fault: &sim.Fault{Phase: "config", Action: sim.Exit}}, Command: apply, Want: Want{Status: 1,
		Out: []string{`configmaps "kubeadm-config" is forbidden: User "system:node:controller-0" cannot get resource "configmaps"`}, Disk: untouched.with(true)}},
	{Name: "once, then a retry", Setup: Setup{Fault: &sim.Fault{Phase: "control-plane", Before: true, Action: sim.Exit, Once: true}},
		Command: apply + "; " + apply, Want: Want{Out: []string{`^error execution phase control-plane: ` + injected, success}, Disk: upgraded}},
	{Name: "drop before kubelet-config", Setup: Setup{Fault: &sim.Fault{Phase: "kubelet-config", Before: true, Action: sim.Drop}}, Command: apply,
		Want: Want{End: Lost, Disk: Disk{Tags: Next, KubeletConfig: From, Backups: []string{"kubeadm-backup-manifests"}, Fault: true}}},
	{Name: "hang after control-plane", Setup: Setup{Fault: &sim.Fault{Phase: "control-plane", Action: sim.Hang, Once: true}}, Command: apply,
		CancelFired: true, Want: Want{End: Cancelled, Disk: Disk{Tags: Next, KubeletConfig: From, Backups: []string{"kubeadm-backup-manifests"}}}},
	{Name: "kube-system uid", Command: `u=$(` + uidCmd + `) && echo "uid $u" && [ "$(` + uidCmd + `)" = "$u" ] && echo same`,
		Want: Want{Out: []string{`^uid [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, `^same$`}, Disk: untouched}},
	{Name: "delay in addon", Setup: Setup{Fault: &sim.Fault{Phase: "addon", Before: true, Action: sim.Delay, Seconds: 1}}, Command: apply,
		Want: Want{Out: []string{success}, Disk: upgraded.with(true)}},
	// The health checks run on a controller (they fail closed: a check that cannot run refuses).
	{Name: "health checks of the cluster", Command: health.ClusterScript, Want: Want{Out: []string{
		`^### kupgrade-health nodes rc=0$`, `^### kupgrade-health pods rc=0$`, `^### kupgrade-health pdbs rc=0$`,
		`^### kupgrade-health metrics rc=0$`, `^### kupgrade-health kubeadm-config rc=0$`, `^### kupgrade-health readyz-etcd rc=0$`}, Disk: untouched}},
	{Name: "health checks of the certificates", Command: health.HostScript, Want: Want{Out: []string{`^### kupgrade-health certs rc=0$`,
		`^/etc/kubernetes/pki/apiserver\.crt notAfter=\w{3} [ \d]\d \d\d:\d\d:\d\d \d{4} GMT$`,
		`^/etc/kubernetes/admin\.conf notAfter=`}, Disk: untouched}},
}
