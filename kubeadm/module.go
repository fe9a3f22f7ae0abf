package kubeadm

import (
	"context"
	"fmt"
)

// Module is a playbook module the runner runs for a caller that plugs it in (runner.Options
// Modules): it looks at the host only through exec and returns the registered result. A returned
// error fails the task with its text.
type Module = func(ctx context.Context, exec Exec, args map[string]any) (map[string]any, error)

// Modules are the playbook modules that read what kubeadm left on a host, by name: kubelet_config.
func Modules() map[string]Module {
	return map[string]Module{"kubelet_config": KubeletConfig}
}

// KubeletConfig is the kubelet_config module. It registers the Snapshot of the kubelet-config
// probe (Snapshot.Map); with compare_to (an earlier registered snapshot) and target it also
// registers the Finding under "finding" (class, summary, next). The optional root argument points
// the probe at another root folder (tests, chroots). It only reads: it runs in check mode too.
func KubeletConfig(ctx context.Context, exec Exec, args map[string]any) (map[string]any, error) {
	s, err := Prober{Root: argText(args, "root")}.Probe(ctx, exec)
	if err != nil {
		return nil, err
	}
	res := s.Map()
	if before, ok := args["compare_to"]; ok {
		b, err := SnapshotFromValue(before)
		if err != nil {
			return nil, fmt.Errorf("kubelet_config: compare_to: %w", err)
		}
		f := Classify(b, s, argText(args, "target"))
		res["finding"] = map[string]any{"class": f.Class, "summary": f.Summary, "next": f.Next}
	}
	return res, nil
}

// argText reads a scalar argument as text ("" when absent).
func argText(args map[string]any, key string) string {
	switch v := args[key].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}
