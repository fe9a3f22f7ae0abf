package kubeadm

import "fmt"

// Installed is what a host's binaries report, read by the probe in the same command as the rest
// of the snapshot (Prober.Versions): the versions `kubelet --version` and `kubeadm version -o
// short` print. It is not stored in the events' evidence.
type Installed struct {
	Kubelet string // "v1.30.2"; "" when the kubelet printed no version
	Kubeadm string // "v1.30.2"; "" when kubeadm is missing or printed no version
	// KubeletSaid and KubeletRC are the first line `kubelet --version` printed (stdout or stderr)
	// and its exit status: what an operator needs when the kubelet reports no version.
	KubeletSaid string
	KubeletRC   int
	Read        bool // the probe read them (Prober.Versions was set)
}

// KubeletErr says why Kubelet is empty: nil when the kubelet reported a version.
func (i Installed) KubeletErr() error {
	if !i.Read {
		return fmt.Errorf("the probe did not read the kubelet's version")
	}
	if i.Kubelet == "" {
		return fmt.Errorf("`kubelet --version` printed %q (exit %d): is the kubelet installed?", i.KubeletSaid, i.KubeletRC)
	}
	return nil
}

// versionsScript prints the "kubelet" and "kubeadm" records: exit status, then the first line of
// what the command printed. Binaries are found on the PATH, as an operator's shell finds them.
// kubeadm is not started while another kupgrade command holds the host's fence: that command may
// be running kubeadm, and one kubeadm runs at a time. The fence lines before it read kubeadm under
// the lock (kr=1, Prober.lockedRead) or found it held (b=1); only a host where the lock cannot be
// taken at all has kubeadm read here, unlocked.
const versionsScript = `l=$( { kubelet --version; } 2>&1 ); rc=$?
printf '%s\n' "$l" | { IFS= read -r x; echo "kubelet$t$rc$t$x"; }
l=; rc=-1
if [ "${kr:-0}" = 1 ]; then l=$kv; rc=$krc
elif [ "${b:-0}" != 1 ]; then l=$( { kubeadm version -o short; } 2>/dev/null ); rc=$?; fi
printf '%s\n' "$l" | { IFS= read -r x; echo "kubeadm$t$rc$t$x"; }
`

// parseInstalled reads one "kubelet" or "kubeadm" record (f[0] names it) into i.
func parseInstalled(i *Installed, f []string) bool {
	if len(f) < 3 {
		return false
	}
	var rc int
	if _, err := fmt.Sscan(f[1], &rc); err != nil {
		return false
	}
	said := f[2]
	for _, s := range f[3:] {
		said += "\t" + s
	}
	i.Read = true
	if f[0] == "kubelet" {
		i.KubeletSaid, i.KubeletRC = said, rc
		if v, ok := KubeletVersion(said); ok && rc == 0 {
			i.Kubelet = v
		}
		return true
	}
	if v, ok := shortVersion(said); ok && rc == 0 {
		i.Kubeadm = v
	}
	return true
}
