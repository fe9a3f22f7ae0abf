package modules

import (
	"context"
	"maps"
)

// SELinuxArgs are the file modules' SELinux context arguments. Ansible applies them only where
// SELinux is enabled and ignores them elsewhere; kupgrade does the same where it is not, and
// refuses the task where it is (it does not set contexts).
var SELinuxArgs = []string{"seuser", "serole", "setype", "selevel"}

// WithoutSELinux returns args without the SELinux arguments, asking the host, when one is set,
// whether SELinux is enabled there: then the task's failure is returned instead.
func WithoutSELinux(ctx context.Context, m *Task, args map[string]any) (map[string]any, map[string]any, error) {
	set := false
	for _, k := range SELinuxArgs {
		if _, ok := args[k]; ok {
			set = true
		}
	}
	if !set {
		return args, nil, nil
	}
	out, err := m.runPlain(ctx, "[ -e /sys/fs/selinux/enforce ]")
	if err != nil {
		return nil, nil, err
	}
	if out.rc == 0 {
		return nil, Failure("this host has SELinux enabled, and kupgrade does not set SELinux contexts (seuser, serole, setype, selevel); set them with a command task, or leave them out"), nil
	}
	args = maps.Clone(args)
	for _, k := range SELinuxArgs {
		delete(args, k)
	}
	return args, nil, nil
}
