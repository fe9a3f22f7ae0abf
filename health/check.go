package health

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/internal/typo"
	"github.com/kupgrade/kupgrade/state"
)

// Status is a check's verdict: pass, warn (the upgrade can go on, an operator should look) or
// fail (it should not start).
type Status string

// The verdicts, and skipped for a check the operator overrode by name.
const (
	Pass    Status = "pass"
	Warn    Status = "warn"
	Fail    Status = "fail"
	Skipped Status = "skipped"
)

// The checks' names, which --skip-check takes.
const (
	CheckNodes        = "nodes-ready"
	CheckControlPlane = "control-plane"
	CheckKubeletSkew  = "kubelet-skew"
	CheckEtcd         = "etcd"
	CheckCerts        = "certificates"
	CheckRemovedAPIs  = "removed-apis"
	CheckDrain        = "drain"
	CheckPackages     = "packages"
)

// Names are every check, in the order they run.
var Names = []string{CheckNodes, CheckControlPlane, CheckKubeletSkew, CheckEtcd, CheckCerts, CheckRemovedAPIs, CheckDrain, CheckPackages}

// Result is one check's line.
type Result struct {
	Check   string   `json:"check"`
	Status  Status   `json:"status"`
	Message string   `json:"message"`
	Objects []string `json:"objects,omitempty"` // what it names: node, namespace/pod, file, group/version/resource
}

// String is the line an operator reads: "fail  certificates: 1 certificate expires within 30
// days: controller-0:/etc/kubernetes/pki/apiserver.crt (3 days)".
func (r Result) String() string {
	line := fmt.Sprintf("%-5s %s: %s", r.Status, r.Check, r.Message)
	if len(r.Objects) > 0 {
		line += ": " + strings.Join(r.Objects, ", ")
	}
	return line
}

// Options are what the checks judge against.
type Options struct {
	From, To    state.Version // the control plane's version now (zero: its lowest kube-apiserver's), and the target (the last hop's)
	CertMinDays int           // a certificate with fewer days left fails; 0: 30
	EtcdMembers int           // members expected; 0: as many as controllers (stacked) or endpoints (external)
	DrainForce  bool          // unmanaged pods may be deleted by the drain (warn, not fail)
	Now         time.Time     // for certificates; zero: time.Now()
	Skip        []string      // checks overridden by name
	// Packages are the hosts the packages check asks (every host of the inventory).
	Packages []PackageHost
	// Hops is the versions an upgrade from from walks (To last; nil or an error: To alone), for
	// the packages check; from is From, else the control plane's lowest version as the cluster's
	// pods report it, else zero (no kubectl on the controller: Hops reads it its own way).
	Hops func(from state.Version) ([]state.Version, error)
}

// DefaultCertMinDays is --cert-min-days's default.
const DefaultCertMinDays = 30

// CheckSkips returns an error naming the first unknown check name in skip, with the known ones.
func CheckSkips(skip []string) error {
	for _, s := range skip {
		if !slices.Contains(Names, s) {
			hint := ""
			if c := typo.Closest(s, Names); c != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", c)
			}
			return fmt.Errorf("%w: --skip-check %q: no such check%s; the checks: %s", state.ErrBadInput, s, hint, strings.Join(Names, ", "))
		}
	}
	return nil
}

// Failed are the results that fail.
func Failed(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if r.Status == Fail {
			out = append(out, r)
		}
	}
	return out
}

func pass(check, msg string) Result { return Result{Check: check, Status: Pass, Message: msg} }

// verdict is fail (or warn when soft) naming objects, else pass with ok.
func verdict(check string, objects []string, soft bool, bad, ok string) Result {
	if len(objects) == 0 {
		return pass(check, ok)
	}
	st := Fail
	if soft {
		st = Warn
	}
	return Result{Check: check, Status: st, Message: bad, Objects: objects}
}
