package kubeadm

import (
	"fmt"
	"strings"
)

// PackagesDir is where the shipped package install (the playbooks' k8s_pkg_install) keeps its
// state on a host: unheld (the packages it unheld, written before it unholds them, removed
// once they are held again) and install.pid (the install running in a session of its own).
const PackagesDir = "/var/lib/kupgrade/packages"

// Packages is what a package install left on a host to put right: what the probe reads.
type Packages struct {
	Unheld      []string `json:"unheld,omitempty"`           // unheld by an install and not held again
	Installing  bool     `json:"installing,omitempty"`       // an install a killed session left still runs
	Interrupted bool     `json:"dpkg_interrupted,omitempty"` // dpkg --audit reports packages half installed
}

// packagesScript prints the packages line when there is something to put right; dpkg --audit
// is asked only of the host's own root.
const packagesScript = `pk="$r` + PackagesDir + `" pu= pi=0 pa=0
[ -s "$pk/unheld" ] && IFS= read -r pu < "$pk/unheld"
if [ -s "$pk/install.pid" ]; then IFS= read -r pp < "$pk/install.pid"; [ -n "$pp" ] && kill -0 "$pp" 2>/dev/null && pi=1; fi
if [ -z "$r" ] && command -v dpkg >/dev/null 2>&1 && [ -n "$(dpkg --audit 2>/dev/null)" ]; then pa=1; fi
if [ -n "$pu" ] || [ $pi = 1 ] || [ $pa = 1 ]; then echo "packages$t$pi$t$pa$t$pu"; fi
`

// parsePackages reads the packages line's fields.
func parsePackages(f []string) *Packages {
	return &Packages{Installing: f[0] == "1", Interrupted: f[1] == "1", Unheld: strings.Fields(f[2])}
}

// Repair says what the packages need ("" for nothing): the finding's summary carries it, so
// that no failure reads "the host needs no repair" while a package is left unheld.
func (p *Packages) Repair() string {
	if p == nil {
		return ""
	}
	var what []string
	if len(p.Unheld) > 0 {
		what = append(what, strings.Join(p.Unheld, ", ")+" left unheld by an interrupted install")
	}
	if p.Installing {
		what = append(what, "an install a killed session left is still running")
	}
	if p.Interrupted {
		what = append(what, "dpkg was interrupted (dpkg --audit)")
	}
	if len(what) == 0 {
		return ""
	}
	return fmt.Sprintf("The packages need repair: %s; the retry of the step, or an abort, waits for the install, finishes dpkg (dpkg --configure -a) and holds them again.", strings.Join(what, "; "))
}
