package modules

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// mount is ansible.posix.mount on Linux: states mounted, present, unmounted, absent,
// absent_from_fstab and remounted, with fstab's lines as fstab.go writes them. The fstab file
// is created when missing (in check mode too, as Ansible does), the mount point's folders when
// mounting; the file, whether the point is mounted and whether it exists are read in one command.

func readMountArgs(args map[string]any) mountArgs {
	a := mountArgs{name: ArgStr(args, "path"), src: ArgStr(args, "src"), hasSrc: args["src"] != nil, fstype: ArgStr(args, "fstype"),
		opts: argStrOr(args, "opts", "defaults"), dump: argStrOr(args, "dump", "0"), passno: argStrOr(args, "passno", "0"),
		fstab: argStrOr(args, "fstab", "/etc/fstab"), boot: "yes", warnings: []any{}}
	opts := strings.Split(a.opts, ",")
	switch {
	case slices.Contains(opts, "noauto"):
		a.warnings = append(a.warnings, "Ignore the 'boot' due to 'opts' contains 'noauto'.")
	case argBool(args, "boot", true):
	case slices.Contains(opts, "defaults"):
		a.boot = "no"
		a.warnings = append(a.warnings, "Ignore the 'boot' due to 'opts' contains 'defaults'.")
	default:
		a.boot, a.opts = "no", strings.Join(append(opts, "noauto"), ",")
	}
	return a
}

// mountProbe creates the fstab file when missing and, when mkdirs, the mount point's missing
// folders (printing each it made); it prints whether the point is mounted and exists.
func mountProbe(a mountArgs, mkdirs bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "f=%s; n=%s\n", hostPath(a.fstab), quote(a.name))
	b.WriteString(`[ -e "$f" ] || { mkdir -p -- "$(dirname -- "$f")" && : >> "$f"; } || exit 1` + "\n")
	if mkdirs {
		b.WriteString(`if [ ! -e "$n" ]; then case "$n" in /*) c= ;; *) c=. ;; esac; set -f; IFS=/
for d in $n; do [ -n "$d" ] || continue; c="$c/$d"; [ -e "$c" ] && continue; mkdir -- "$c" || exit 1; printf 'created:%s\n' "$c"; done
set +f; unset IFS; fi
`)
	}
	b.WriteString(`{ mountpoint -q -- "$n" 2>/dev/null || awk -v d="$n" '$5 == d { f = 1 } END { exit !f }' /proc/self/mountinfo; } && echo mounted
[ -e "$n" ] && echo exists
`)
	return b.String()
}

// mountSeen is what the probe found.
type mountSeen struct {
	mounted, exists bool
	created         []string
}

func readMountProbe(pre string) mountSeen {
	var s mountSeen
	for l := range strings.SplitSeq(strings.TrimSuffix(pre, "\n"), "\n") {
		switch {
		case l == "mounted":
			s.mounted = true
		case l == "exists":
			s.exists = true
		case strings.HasPrefix(l, "created:"):
			s.created = append(s.created, strings.TrimPrefix(l, "created:"))
		}
	}
	return s
}

func modMount(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	a, state := readMountArgs(args), ArgStr(args, "state")
	if state == "mounted" || state == "present" {
		if missing := missingOf(args, "src", "fstype"); missing != "" {
			return Failure(fmt.Sprintf("state is %s but all of the following are missing: %s", state, missing)), nil
		}
	}
	pre, rt, fail, err := readRemoteAfter(ctx, m, a.fstab, mountProbe(a, state == "mounted" && !m.Check))
	if err != nil || fail != nil {
		return fail, err
	}
	mo := mountOp{m: m, a: a, state: state, old: rt.data, seen: readMountProbe(pre), backup: argBool(args, "backup", false)}
	changed, fail, err := mo.run(ctx)
	if err != nil || fail != nil {
		return fail, err
	}
	return mo.result(changed, args), nil
}

// missingOf lists the keys of args that are absent, as Ansible's required_if names them.
func missingOf(args map[string]any, keys ...string) string {
	var out []string
	for _, k := range keys {
		if args[k] == nil {
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

// result is Ansible's: changed and the arguments as the module completed them.
func (mo *mountOp) result(changed bool, args map[string]any) Result {
	a := mo.a
	r := Result{"changed": changed, "failed": false, "name": a.name, "opts": a.opts, "dump": a.dump, "passno": a.passno, "fstab": a.fstab,
		"boot": a.boot, "backup_file": mo.backupFile}
	for _, k := range []string{"src", "fstype"} {
		if args[k] != nil {
			r[k] = ArgStr(args, k)
		}
	}
	if len(a.warnings) > 0 {
		r["warnings"] = a.warnings
	}
	return r
}
