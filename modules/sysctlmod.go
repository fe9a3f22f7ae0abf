package modules

import (
	"context"
	"fmt"
	"path"
	"strings"
)

// sysctlC runs sysctl as Ansible does, in the C locale.
const sysctlC = "LANG=C LC_ALL=C LC_MESSAGES=C sysctl "

func modSysctl(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	a := sysctlArgs{name: strings.TrimSpace(ArgStr(args, "name")), value: sysctlValue(args),
		present: ArgStr(args, "state") != "absent", reload: argBool(args, "reload", true),
		set: argBool(args, "sysctl_set", false), ignore: argBool(args, "ignoreerrors", false),
		file: argStrOr(args, "sysctl_file", "/etc/sysctl.conf")}
	switch {
	case a.name == "":
		return Failure("name cannot be blank"), nil
	case a.present && args["value"] == nil:
		return Failure("state is present but all of the following are missing: value"), nil
	case a.present && ArgStr(args, "value") == "":
		return Failure("value cannot be blank"), nil
	}
	probe := "[ -d \"$(dirname -- " + hostPath(a.file) + ")\" ] || echo nodir\n" +
		"v=$(" + sysctlC + "-e -n " + quote(a.name) + " 2>/dev/null) && printf 'proc:%s\\n' \"$v\""
	pre, rt, fail, err := readRemoteAfter(ctx, m, a.file, probe)
	if err != nil || fail != nil {
		return fail, err
	}
	pre, noDir := strings.CutPrefix(pre, "nodir\n")
	p := planSysctl(a, procValue(pre), rt.data)
	if m.Check {
		return Result{"changed": p.changed, "failed": false}, nil
	}
	if noDir && p.writeFile { // Ansible's temporary file beside it cannot be made either
		return Failure(fmt.Sprintf("Failed to write to file %s: [Errno 2] No such file or directory: %q", a.file, path.Dir(a.file))), nil
	}
	if fail, err := applySysctl(ctx, m, a, p); err != nil || fail != nil {
		return fail, err
	}
	return Result{"changed": p.changed, "failed": false}, nil
}

// procValue reads the probe's output: the running value as sysctl printed it, nil when
// sysctl failed.
func procValue(pre string) *string {
	v, ok := strings.CutPrefix(pre, "proc:")
	if !ok {
		return nil
	}
	return &v
}

// applySysctl sets the running value, writes the file and reloads it, in Ansible's order.
func applySysctl(ctx context.Context, m *Task, a sysctlArgs, p sysctlPlan) (map[string]any, error) {
	flag := map[bool]string{true: "-e ", false: ""}[a.ignore]
	if p.setProc {
		rc, so, se, err := m.runRaw(ctx, sysctlC+flag+"-w "+quote(a.name+"="+a.value))
		if err != nil {
			return nil, err
		}
		if rc != 0 || sysctlFailed.MatchString(se) {
			return Failure(fmt.Sprintf("setting %s failed: %s", a.name, so+se)), nil
		}
	}
	if p.writeFile {
		data := []byte(strings.Join(p.lines, "\n") + "\n")
		if len(p.lines) == 0 {
			data = []byte{}
		}
		if _, _, fail, err := writeRemote(ctx, m, a.file, writeOpts{data: data}); err != nil || fail != nil {
			return fail, err
		}
	}
	if !p.changed || !a.reload {
		return nil, nil
	}
	rc, so, se, err := m.runRaw(ctx, sysctlC+flag+"-p "+hostPath(a.file))
	if err != nil {
		return nil, err
	}
	if rc != 0 || sysctlFailed.MatchString(se) {
		return Failure("Failed to reload sysctl: " + so + se), nil
	}
	return nil, nil
}
