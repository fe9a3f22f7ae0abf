package modules

import (
	"context"
	"strings"
)

// What cron does on the host: read the crontab (one command), install it, remove a cron_file.

// noCrontab is Ansible's failure when the host has no crontab command.
const noCrontab = `Failed to find required executable "crontab" in paths: `

// crontabUser is the shell that sets $u to crontab's -u option: the user, unless the commands
// run as that user already.
func crontabUser(user string) string {
	if user == "" {
		return "u=\n"
	}
	return "u=" + quote(user) + `; if [ "$(id -un)" = "$u" ]; then u=; else u="-u $u"; fi` + "\n"
}

func readCrontab(ctx context.Context, m *Task, o cronArgs) (*crontab, map[string]any, error) {
	const probe = `command -v crontab >/dev/null 2>&1 || echo "nocrontab:$PATH"`
	if o.file != "" {
		pre, rt, fail, err := readRemoteAfter(ctx, m, o.file, probe)
		if err != nil || fail != nil {
			return nil, fail, err
		}
		if p, missing := strings.CutPrefix(pre, "nocrontab:"); missing {
			return nil, Failure(noCrontab + strings.TrimSpace(p)), nil
		}
		c := &crontab{existing: string(rt.data), lines: splitLines(string(rt.data)), user: o.user, file: true}
		return c, nil, nil
	}
	rc, so, _, err := m.runRaw(ctx, probe+" && exit 127\n"+crontabUser(o.user)+"exec crontab $u -l 2>/dev/null")
	switch {
	case err != nil:
		return nil, nil, err
	case rc == 127 && strings.HasPrefix(so, "nocrontab:"):
		return nil, Failure(noCrontab + strings.TrimSpace(strings.TrimPrefix(so, "nocrontab:"))), nil
	case rc != 0 && rc != 1: // 1: no crontab yet
		return nil, Failure("Unable to read crontab"), nil
	}
	c := userCrontab(so)
	c.user = o.user
	return c, nil, nil
}

// writeCrontab writes a cron_file, or installs a user's crontab with crontab.
func writeCrontab(ctx context.Context, m *Task, o cronArgs, c *crontab) (map[string]any, error) {
	if o.file != "" {
		_, _, fail, err := writeRemote(ctx, m, o.file, writeOpts{data: []byte(c.render())})
		return fail, err
	}
	script := `t=$(mktemp "${TMPDIR:-/tmp}/crontabXXXXXXXX") || exit 1
cat > "$t" && chmod 644 "$t" || { rm -f -- "$t"; exit 1; }
` + crontabUser(o.user) + `crontab $u "$t"; rc=$?; rm -f -- "$t"; exit $rc`
	out, err := m.send(ctx, Wrap(script, m.Env, m.Become, m.BecomeUser), strings.NewReader(c.render()))
	if err != nil || out.rc == 0 {
		return nil, err
	}
	return Failure(out.stderr), nil
}

// removeCronFile removes a cron_file its last job left empty, as Ansible does (in check mode it
// reports whether there is a file to remove); its diff ends in /dev/null.
func removeCronFile(ctx context.Context, m *Task, o cronArgs, args map[string]any, c *crontab) (map[string]any, error) {
	p := hostPath(o.file)
	script := "rm -- " + p + " 2>/dev/null"
	if m.Check {
		script = "[ -f " + p + " ]"
	}
	out, err := m.runPlain(ctx, script)
	if err != nil {
		return nil, err
	}
	diff := map[string]any{}
	if m.Diff {
		diff = cronDiff(o, c.existing, "", "/dev/null")
	}
	return Result{"changed": out.rc == 0, "failed": false, "cron_file": ArgStr(args, "cron_file"), "state": o.state, "diff": diff}, nil
}

// cronDiff is cron's diff as Ansible's module makes it: the crontab before and after, headed by
// the cron_file, or the user's crontab; afterHeader replaces the after's header when set.
func cronDiff(o cronArgs, before, after, afterHeader string) map[string]any {
	h := "crontab"
	switch {
	case o.file != "":
		h = o.file
	case o.user != "":
		h = `crontab for user "` + o.user + `"`
	}
	if afterHeader == "" {
		afterHeader = h
	}
	return map[string]any{"before": before, "before_header": h, "after": after, "after_header": afterHeader}
}
