package health

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// Facts are the scripts' outputs: ClusterScript's and EtcdScript's from one controller,
// HostScript's from each controller (by name).
type Facts struct {
	Cluster string
	Etcd    string
	Hosts   map[string]string
	// Packages are OfferedScript's outputs from each host of Options.Packages (by name), asked at
	// Hops (To last), the kubelet's packages at every hop when KubeletsEachHop, else at the last.
	Packages        map[string]string
	Hops            []state.Version
	KubeletsEachHop bool
}

// Exec runs script as root on the named controller and returns its output.
type Exec func(ctx context.Context, host, script string) (string, error)

// Run gathers the facts (the cluster's and etcd's on the first controller, the certificates on
// every controller, the packages on every host of o.Packages) and judges them. Skipped checks
// gather nothing. A controller that cannot run a script (unreachable) makes the checks it serves
// fail "cannot run": a check that cannot run is a refusal, unless the operator skips it by name.
func Run(ctx context.Context, exec Exec, controllers []string, o Options) ([]Result, error) {
	if len(controllers) == 0 {
		return nil, fmt.Errorf("health checks: no controller to run them on")
	}
	var f Facts
	var err error
	if f.Cluster, err = exec(ctx, controllers[0], ClusterScript); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return notRun(o.Skip, namingHost(controllers[0], err.Error())), nil
	}
	if !slices.Contains(o.Skip, CheckEtcd) {
		cfg, err := ParseEtcdConfig(sections(f.Cluster)["kubeadm-config"].body)
		if err != nil {
			return nil, err
		}
		if f.Etcd, err = exec(ctx, controllers[0], EtcdScript(cfg)); err != nil {
			f.Etcd = fmt.Sprintf("%setcdctl rc=%d\n%v\n", sectionMark, notFound, err)
		}
	}
	if !slices.Contains(o.Skip, CheckPackages) {
		gatherPackages(ctx, exec, &f, o)
	}
	if !slices.Contains(o.Skip, CheckCerts) {
		f.Hosts = map[string]string{}
		for _, c := range controllers {
			if f.Hosts[c], err = exec(ctx, c, HostScript); err != nil {
				f.Hosts[c] = fmt.Sprintf("%scerts rc=%d\n%v\n", sectionMark, notFound, err)
			}
		}
	}
	return Judge(f, o), nil
}

// Judge runs every check on f, in the order of Names; a check in o.Skip is a Skipped line.
func Judge(f Facts, o Options) []Result {
	if o.CertMinDays == 0 {
		o.CertMinDays = DefaultCertMinDays
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	secs := sections(f.Cluster)
	if s := secs["nodes"]; s.rc == notFound {
		out := notRun(o.Skip, "on the first controller: "+firstLine(s.body))
		if i := slices.Index(Names, CheckPackages); !slices.Contains(o.Skip, CheckPackages) {
			out[i] = packagesCheck(f, o) // asked of each host's package manager, not of kubectl
		}
		if i := slices.Index(Names, CheckCerts); !slices.Contains(o.Skip, CheckCerts) && f.Hosts != nil {
			out[i] = certificates(hostCerts(f.Hosts), o.Now, o.CertMinDays) // read with openssl, not kubectl
		}
		return out
	}
	nodes, nodesErr := list[node](secs["nodes"], "nodes")
	pods, podsErr := list[pod](secs["pods"], "pods")
	if o.From.Major == 0 && podsErr == nil {
		o.From = lowestControlPlane(pods)
	}
	checks := map[string]func() Result{
		CheckNodes: func() Result { return needs(CheckNodes, nodesErr, func() Result { return nodesReady(nodes) }) },
		CheckControlPlane: func() Result {
			return needs(CheckControlPlane, firstErr(nodesErr, podsErr), func() Result { return controlPlane(nodes, pods, o.From, false) })
		},
		CheckKubeletSkew: func() Result {
			return needs(CheckKubeletSkew, nodesErr, func() Result { return kubeletSkew(nodes, o.To) })
		},
		CheckEtcd:        func() Result { return etcdCheck(f, secs, nodes, o) },
		CheckCerts:       func() Result { return certificates(hostCerts(f.Hosts), o.Now, o.CertMinDays) },
		CheckRemovedAPIs: func() Result { return apisCheck(secs["metrics"], o) },
		CheckDrain:       func() Result { return drainCheck(secs, pods, podsErr, o) },
		CheckPackages:    func() Result { return packagesCheck(f, o) },
	}
	var out []Result
	for _, name := range Names {
		if slices.Contains(o.Skip, name) {
			out = append(out, skipped(name))
			continue
		}
		out = append(out, checks[name]())
	}
	return out
}

// namingHost is msg, prefixed with host unless it names it already (an SSH error does).
func namingHost(host, msg string) string {
	if strings.Contains(msg, host) {
		return msg
	}
	return host + ": " + msg
}

// notFound is a shell's exit status for a command it cannot find.
const notFound = 127

// notRun is every check's line when the controller lacks what they need (kubectl on root's
// path, admin.conf) or cannot be reached: a failure, for a check that cannot run is no pass
// (issue 35, S2: fail closed); --skip-check NAME goes on without it, recorded as an event.
func notRun(skip []string, why string) []Result {
	var out []Result
	for _, name := range Names {
		r := cannotRun(name, why)
		if slices.Contains(skip, name) {
			r = skipped(name)
		}
		out = append(out, r)
	}
	return out
}

// cannotRun is check name's failure when it could not run, for why.
func cannotRun(name, why string) Result {
	return Result{Check: name, Status: Fail, Message: CannotRun + why}
}

// CannotRun starts the message of a check that could not run.
const CannotRun = "cannot run: "

func skipped(name string) Result {
	return Result{Check: name, Status: Skipped, Message: "skipped by --skip-check"}
}

// needs is check() unless err says its facts could not be read: then a failure saying so.
func needs(name string, err error, check func() Result) Result {
	if err != nil {
		return Result{Check: name, Status: Fail, Message: err.Error()}
	}
	return check()
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func hostCerts(hosts map[string]string) map[string]section {
	out := map[string]section{}
	for h, text := range hosts {
		s, ok := sections(text)["certs"]
		if !ok {
			s = section{rc: -1, body: "no certificate section in the output"}
		}
		out[h] = s
	}
	return out
}

func etcdCheck(f Facts, secs map[string]section, nodes []node, o Options) Result {
	want := o.EtcdMembers
	if want == 0 {
		cfg, err := ParseEtcdConfig(secs["kubeadm-config"].body)
		if err != nil {
			return Result{Check: CheckEtcd, Status: Fail, Message: err.Error()}
		}
		want = len(cfg.Endpoints)
		if !cfg.External {
			want = countControllers(nodes)
		}
	}
	return etcd(sections(f.Etcd), secs["readyz-etcd"], want)
}

func countControllers(nodes []node) int {
	n := 0
	for _, nd := range nodes {
		if nd.controller() {
			n++
		}
	}
	return n
}

func apisCheck(s section, o Options) Result {
	if s.rc != 0 {
		return Result{Check: CheckRemovedAPIs, Status: Fail, Message: "read the API servers' metrics: " + firstLine(s.body)}
	}
	requested, err := parseDeprecated(s.body)
	if err != nil {
		return Result{Check: CheckRemovedAPIs, Status: Fail, Message: err.Error()}
	}
	return removedAPIs(requested, o.From, o.To)
}

func drainCheck(secs map[string]section, pods []pod, podsErr error, o Options) Result {
	budgets, err := list[budget](secs["pdbs"], "pdb")
	return needs(CheckDrain, firstErr(podsErr, err), func() Result { return drainFeasible(pods, budgets, o.DrainForce) })
}
