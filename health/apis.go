package health

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// removedIn are the group/version/resource triples each Kubernetes minor (1.N) stops serving,
// from the Kubernetes deprecated API migration guide. The core group is "".
var removedIn = map[int][]string{
	22: {"admissionregistration.k8s.io/v1beta1/mutatingwebhookconfigurations", "admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations",
		"apiextensions.k8s.io/v1beta1/customresourcedefinitions", "apiregistration.k8s.io/v1beta1/apiservices",
		"authentication.k8s.io/v1beta1/tokenreviews", "authorization.k8s.io/v1beta1/subjectaccessreviews",
		"authorization.k8s.io/v1beta1/localsubjectaccessreviews", "authorization.k8s.io/v1beta1/selfsubjectaccessreviews",
		"certificates.k8s.io/v1beta1/certificatesigningrequests", "coordination.k8s.io/v1beta1/leases",
		"extensions/v1beta1/ingresses", "networking.k8s.io/v1beta1/ingresses", "networking.k8s.io/v1beta1/ingressclasses",
		"rbac.authorization.k8s.io/v1beta1/clusterroles", "rbac.authorization.k8s.io/v1beta1/clusterrolebindings",
		"rbac.authorization.k8s.io/v1beta1/roles", "rbac.authorization.k8s.io/v1beta1/rolebindings",
		"scheduling.k8s.io/v1beta1/priorityclasses", "storage.k8s.io/v1beta1/csidrivers", "storage.k8s.io/v1beta1/csinodes",
		"storage.k8s.io/v1beta1/storageclasses", "storage.k8s.io/v1beta1/volumeattachments"},
	25: {"batch/v1beta1/cronjobs", "discovery.k8s.io/v1beta1/endpointslices", "events.k8s.io/v1beta1/events",
		"autoscaling/v2beta1/horizontalpodautoscalers", "policy/v1beta1/poddisruptionbudgets",
		"policy/v1beta1/podsecuritypolicies", "node.k8s.io/v1beta1/runtimeclasses"},
	26: {"flowcontrol.apiserver.k8s.io/v1beta1/flowschemas", "flowcontrol.apiserver.k8s.io/v1beta1/prioritylevelconfigurations",
		"autoscaling/v2beta2/horizontalpodautoscalers"},
	27: {"storage.k8s.io/v1beta1/csistoragecapacities"},
	29: {"flowcontrol.apiserver.k8s.io/v1beta2/flowschemas", "flowcontrol.apiserver.k8s.io/v1beta2/prioritylevelconfigurations"},
	32: {"flowcontrol.apiserver.k8s.io/v1beta3/flowschemas", "flowcontrol.apiserver.k8s.io/v1beta3/prioritylevelconfigurations"},
}

// RemovedBetween are the group/version/resource triples that a minor after from's, up to and
// including to's, removes, each with the minor that removes it ("policy/v1beta1/
// poddisruptionbudgets (removed in v1.25)").
func RemovedBetween(from, to state.Version) map[string]int {
	out := map[string]int{}
	for minor, gvrs := range removedIn {
		if minor > from.Minor && minor <= to.Minor {
			for _, g := range gvrs {
				out[g] = minor
			}
		}
	}
	return out
}

// requestedAPI is one apiserver_requested_deprecated_apis series: a deprecated API some client
// asked for since the API server started.
type requestedAPI struct {
	gvr     string // group/version/resource
	removed int    // the minor of the removed_release label; 0 when none
}

// parseDeprecated reads the metric's lines (Prometheus text format), each API once however
// many API servers report it.
func parseDeprecated(body string) ([]requestedAPI, error) {
	var out []requestedAPI
	seen := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		labels, err := metricLabels(line)
		if err != nil {
			return nil, err
		}
		r := requestedAPI{gvr: labels["group"] + "/" + labels["version"] + "/" + labels["resource"]}
		if seen[r.gvr] {
			continue
		}
		seen[r.gvr] = true
		if rel := labels["removed_release"]; rel != "" {
			if _, m, ok := strings.Cut(rel, "."); ok {
				r.removed, _ = strconv.Atoi(m)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// metricLabels parses name{k="v",...} value.
func metricLabels(line string) (map[string]string, error) {
	open, end := strings.IndexByte(line, '{'), strings.LastIndexByte(line, '}')
	if open < 0 || end < open {
		return nil, fmt.Errorf("metric line without labels: %q", line)
	}
	labels := map[string]string{}
	rest := line[open+1 : end]
	for rest != "" {
		key, after, ok := strings.Cut(rest, "=")
		if !ok || !strings.HasPrefix(after, `"`) {
			return nil, fmt.Errorf("metric line %q: bad label at %q", line, rest)
		}
		value, err := strconv.QuotedPrefix(after)
		if err != nil {
			return nil, fmt.Errorf("metric line %q: %w", line, err)
		}
		labels[strings.TrimSpace(key)], _ = strconv.Unquote(value)
		rest = strings.TrimPrefix(after[len(value):], ",")
	}
	return labels, nil
}

// removedAPIs fails naming every API still requested that the target (or a hop on the way)
// removes: in the table, or by the metric's own removed_release.
func removedAPIs(requested []requestedAPI, from, to state.Version) Result {
	removed := RemovedBetween(from, to)
	var bad []string
	for _, r := range requested {
		minor, ok := removed[r.gvr]
		if !ok && r.removed > from.Minor && r.removed <= to.Minor {
			minor, ok = r.removed, true
		}
		if ok {
			bad = append(bad, fmt.Sprintf("%s (removed in v%d.%d)", r.gvr, to.Major, minor))
		}
	}
	slices.Sort(bad)
	bad = slices.Compact(bad)
	return verdict(CheckRemovedAPIs, bad, false,
		fmt.Sprintf("APIs in use that %s removes (apiserver_requested_deprecated_apis)", to),
		fmt.Sprintf("%d deprecated APIs requested, none removed by %s", len(requested), to))
}
