package upgrade

import (
	"context"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
)

// packagesRepairScript puts right what an interrupted package install left on a host (the
// playbooks' k8s_pkg_install keeps its state in kubeadm.PackagesDir): it waits for an install
// still running in its own session (up to 10 minutes), finishes an interrupted dpkg and holds
// again the packages that install unheld. It prints what it did; nothing on a host where
// nothing is left.
const packagesRepairScript = `pk=` + kubeadm.PackagesDir + `
[ -d "$pk" ] || exit 0
if [ -s "$pk/install.pid" ]; then
  p=$(cat "$pk/install.pid") n=0
  while [ -n "$p" ] && kill -0 "$p" 2>/dev/null; do
    [ $n -lt 600 ] || { echo "kupgrade: the install an earlier session left (pid $p) still runs after 10 minutes: look at $pk/install.log" >&2; exit 1; }
    sleep 1; n=$((n+1))
  done
  rm -f "$pk/install.pid"
fi
if command -v dpkg >/dev/null 2>&1 && [ -n "$(dpkg --audit 2>/dev/null)" ]; then
  dpkg --configure -a >/dev/null || { echo "kupgrade: dpkg --configure -a failed: run it by hand" >&2; exit 1; }
  echo "finished the interrupted dpkg"
fi
if [ -s "$pk/unheld" ]; then
  u=$(cat "$pk/unheld")
  apt-mark hold $u >/dev/null || { echo "kupgrade: apt-mark hold $u failed" >&2; exit 1; }
  rm -f "$pk/unheld"
  echo "held $u again"
fi
`

// repairPackages runs packagesRepairScript on every node of the inventory before abort decides
// anything: a killed install's unheld packages and interrupted dpkg are abort's to put right
// too, whatever else abort finds to restore. A host that cannot be reached is only warned of
// (the control plane's abort does not wait on a worker that is down); a repair that fails
// refuses the abort, before anything is written, naming the host.
func (w *Workflow) repairPackages(ctx context.Context) error {
	for _, h := range w.Inventory.Nodes() {
		did, err := w.repairPackagesOn(ctx, h)
		if err != nil {
			return fmt.Errorf("abort: the packages on %s could not be put right: %w", h.Name, err)
		}
		if did != "" {
			w.log().Info("abort: put right what an interrupted package install left", "host", h.Name, "did", did)
		}
	}
	return nil
}

func (w *Workflow) repairPackagesOn(ctx context.Context, h *inventory.Host) (string, error) {
	if _, err := w.Runner.Conn(ctx, h); err != nil {
		w.log().Warn("abort: the host's packages were not checked: it cannot be reached", "host", h.Name, "error", err)
		return "", nil
	}
	out, err := w.execScript(ctx, h, "Put right what an interrupted package install left", packagesRepairScript)
	return strings.Join(strings.Fields(out), " "), err
}
