package health

import (
	"fmt"
	"slices"
)

// budget is a PodDisruptionBudget as kubectl -o json shows it.
type budget struct {
	Meta meta `json:"metadata"`
	Spec struct {
		Selector *selector `json:"selector"`
	} `json:"spec"`
	Status struct {
		DisruptionsAllowed int `json:"disruptionsAllowed"`
	} `json:"status"`
}

// selector is a label selector: every matchLabels pair and every expression must hold.
type selector struct {
	MatchLabels      map[string]string `json:"matchLabels"`
	MatchExpressions []struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values"`
	} `json:"matchExpressions"`
}

// matches reports whether labels satisfy s. A nil selector matches nothing (as a budget without
// one selects no pod); an empty one matches everything.
func (s *selector) matches(labels map[string]string) bool {
	if s == nil {
		return false
	}
	for k, v := range s.MatchLabels {
		if labels[k] != v {
			return false
		}
	}
	for _, e := range s.MatchExpressions {
		v, has := labels[e.Key]
		ok := map[string]bool{
			"In": has && slices.Contains(e.Values, v), "NotIn": !has || !slices.Contains(e.Values, v),
			"Exists": has, "DoesNotExist": !has,
		}[e.Operator]
		if !ok {
			return false
		}
	}
	return true
}

// drainFeasible judges a drain of every node: a pod under a budget that allows no disruption
// now stops it (fail, naming the pod and the budget); a pod no controller manages is refused
// by a drain unless forced (fail, or warn when force); a pod with emptyDir data loses it (warn).
// DaemonSet pods, static (mirror) pods and finished pods are not evicted and not judged.
func drainFeasible(pods []pod, budgets []budget, force bool) Result {
	var blocked, unmanaged, local []string
	for _, p := range pods {
		if !evicted(p) {
			continue
		}
		name := p.Meta.Namespace + "/" + p.Meta.Name
		if b, ok := blockingBudget(p, budgets); ok {
			blocked = append(blocked, fmt.Sprintf("%s on %s (budget %s/%s allows no disruption)", name, p.Spec.NodeName, b.Meta.Namespace, b.Meta.Name))
		}
		if len(p.Meta.Owners) == 0 {
			unmanaged = append(unmanaged, fmt.Sprintf("%s on %s (no controller: a drain refuses it)", name, p.Spec.NodeName))
		}
		for _, v := range p.Spec.Volumes {
			if v.EmptyDir != nil {
				local = append(local, fmt.Sprintf("%s on %s (emptyDir %s: its data goes)", name, p.Spec.NodeName, v.Name))
				break
			}
		}
	}
	return drainVerdict(blocked, unmanaged, local, force)
}

func drainVerdict(blocked, unmanaged, local []string, force bool) Result {
	fails := blocked
	if !force {
		fails = append(fails, unmanaged...)
	}
	warns := local
	if force {
		warns = append(warns, unmanaged...)
	}
	switch {
	case len(fails) > 0:
		return Result{Check: CheckDrain, Status: Fail, Objects: append(fails, warns...),
			Message: fmt.Sprintf("%d pods would stop a drain", len(fails))}
	case len(warns) > 0:
		return Result{Check: CheckDrain, Status: Warn, Objects: warns,
			Message: fmt.Sprintf("a drain goes through, but %d pods lose data or are deleted unmanaged", len(warns))}
	}
	return pass(CheckDrain, "every pod can be evicted within its budget")
}

// evicted reports whether a drain evicts p: a running or pending pod not owned by a DaemonSet
// and not a static pod's mirror.
func evicted(p pod) bool {
	if p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed" || p.Spec.NodeName == "" {
		return false
	}
	if _, mirror := p.Meta.Annotations["kubernetes.io/config.mirror"]; mirror {
		return false
	}
	return !slices.ContainsFunc(p.Meta.Owners, func(o owner) bool { return o.Kind == "DaemonSet" })
}

func blockingBudget(p pod, budgets []budget) (budget, bool) {
	for _, b := range budgets {
		if b.Meta.Namespace == p.Meta.Namespace && b.Status.DisruptionsAllowed <= 0 && b.Spec.Selector.matches(p.Meta.Labels) {
			return b, true
		}
	}
	return budget{}, false
}
