package kubeadm

import (
	"context"
	"fmt"

	"github.com/kupgrade/kupgrade/modules"
)

// Modules returns the module registry kupgrade's playbooks need: the built-in modules
// (modules.Builtins) and kubeadm's own, kubelet_config.
func Modules() *modules.Registry {
	r := modules.Builtins()
	if err := r.Add("kubelet_config", KubeletConfig); err != nil {
		panic(err) // a built-in module took kubeadm's name: TestModules says which
	}
	return r
}

// KubeletConfig is the kubelet_config module. It registers the Snapshot of the kubelet-config
// probe (Snapshot.Map); with compare_to (an earlier registered snapshot) and target it also
// registers the Finding under "finding" (class, summary, next). The optional root argument points
// the probe at another root folder (tests, chroots). It reads the host through t.Exec (as root
// when the task becomes) and only reads: it runs in check mode too.
func KubeletConfig(ctx context.Context, t *modules.Task, args map[string]any) (modules.Result, error) {
	s, err := Prober{Root: modules.ArgStr(args, "root")}.Probe(ctx, t.Exec())
	if err != nil {
		return nil, err
	}
	res := s.Map()
	if before, ok := args["compare_to"]; ok {
		b, err := SnapshotFromValue(before)
		if err != nil {
			return nil, fmt.Errorf("kubelet_config: compare_to: %w", err)
		}
		f := Classify(b, s, modules.ArgStr(args, "target"))
		res["finding"] = map[string]any{"class": f.Class, "summary": f.Summary, "next": f.Next}
	}
	return res, nil
}
