package modules

import (
	"context"
	"strconv"
	"strings"
)

// group is ansible.builtin.group on Linux: groupadd, groupmod -g and groupdel, the group read
// with getent as Python's grp reads it, Ansible's result (name, state, changed, gid, system,
// stdout and stderr of the command) and its check mode.

// groupGID reads the group's gid from getent; ok is false when there is no such group.
func groupGID(ctx context.Context, m *Task, name string) (gid int, ok bool, err error) {
	out, err := m.runPlain(ctx, "getent group "+quote(name))
	if err != nil || out.rc != 0 {
		return 0, false, err
	}
	f := strings.Split(strings.TrimSpace(out.stdout), ":")
	if len(f) < 3 {
		return 0, false, nil
	}
	gid, err = strconv.Atoi(f[2])
	return gid, err == nil, nil
}

// groupCommand is the command the call runs ("" for none) in Ansible's argument order.
func groupCommand(args map[string]any, exists bool, gid int) string {
	name := quote(ArgStr(args, "name"))
	hasGID := args["gid"] != nil
	var b strings.Builder
	switch {
	case ArgStr(args, "state") == "absent":
		if !exists {
			return ""
		}
		return "groupdel " + name
	case !exists:
		b.WriteString("groupadd")
	case hasGID && ArgStr(args, "gid") != strconv.Itoa(gid):
		b.WriteString("groupmod")
	default:
		return ""
	}
	if hasGID {
		b.WriteString(" -g " + quote(ArgStr(args, "gid")))
		if argBool(args, "non_unique", false) {
			b.WriteString(" -o")
		}
	}
	if !exists && argBool(args, "system", false) {
		b.WriteString(" -r")
	}
	return b.String() + " " + name
}

func modGroup(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	name, state := ArgStr(args, "name"), argStrOr(args, "state", "present")
	if argBool(args, "non_unique", false) && args["gid"] == nil {
		return Failure("non_unique is True but all of the following are missing: gid"), nil
	}
	gid, exists, err := groupGID(ctx, m, name)
	if err != nil {
		return nil, err
	}
	cmd := groupCommand(args, exists, gid)
	res := Result{"name": name, "state": state, "changed": cmd != "", "failed": false}
	if cmd != "" && m.Check {
		if !exists || state == "absent" { // Ansible returns changed alone then
			return Result{"changed": true, "failed": false}, nil
		}
		cmd = ""
	}
	if cmd != "" {
		rc, so, se, err := m.runRaw(ctx, cLocale+cmd)
		if err != nil {
			return nil, err
		}
		if rc != 0 {
			return Result{"failed": true, "changed": false, "name": name, "msg": se}, nil
		}
		for k, v := range map[string]string{"stdout": so, "stderr": se} {
			if v != "" {
				res[k] = v
			}
		}
	}
	if gid, exists, err = groupGID(ctx, m, name); err != nil {
		return nil, err
	}
	if exists {
		res["gid"], res["system"] = gid, argBool(args, "system", false)
	}
	return res, nil
}
