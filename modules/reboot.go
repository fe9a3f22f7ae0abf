package modules

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// rebootArgs are reboot's arguments with Ansible's defaults.
type rebootArgs struct {
	command, bootTime, test, msg string
	searchPaths                  []string
	pre, post, timeout, connect  int
}

// modReboot is Ansible's reboot on a Linux host: it reads the boot id (boot_time_command), runs
// shutdown -r (found in search_paths) or reboot_command, then dials the host again until the
// boot id has changed and test_command succeeds, each within reboot_timeout, with Ansible's
// back-off between tries. Check mode reports a reboot and runs nothing; a local connection is
// refused, as this machine would reboot. Its results and messages are Ansible's.
func modReboot(ctx context.Context, m *Task, args map[string]any) (Result, error) {
	if m.Local {
		return Result{"changed": false, "elapsed": 0, "rebooted": false, "failed": true,
			"msg": "Running reboot with local connection would reboot the control node."}, nil
	}
	if m.Check {
		return Result{"changed": true, "elapsed": 0, "rebooted": true}, nil
	}
	a, err := rebootArgsOf(args)
	if err != nil {
		return Failure(err.Error()), nil
	}
	before, fail, err := bootID(ctx, m, a.bootTime)
	if err != nil || fail != nil {
		return fail, err
	}
	start := time.Now()
	if res, err := a.reboot(ctx, m); err != nil || res != nil {
		if res != nil {
			res["elapsed"] = int(time.Since(start).Seconds())
		}
		return res, err
	}
	if err := sleepCtx(ctx, time.Duration(a.post)*time.Second); err != nil {
		return nil, err
	}
	res, err := a.validate(ctx, m, before)
	if res != nil {
		res["elapsed"] = int(time.Since(start).Seconds())
	}
	return res, err
}

func rebootArgsOf(args map[string]any) (rebootArgs, error) {
	a := rebootArgs{bootTime: ArgStr(args, "boot_time_command"), test: ArgStr(args, "test_command"),
		msg: "Reboot initiated by Ansible", timeout: 600, connect: 10,
		searchPaths: []string{"/sbin", "/bin", "/usr/sbin", "/usr/bin", "/usr/local/sbin"}}
	if a.bootTime == "" {
		a.bootTime = "cat /proc/sys/kernel/random/boot_id"
	}
	if _, ok := args["test_command"]; !ok {
		a.test = "whoami"
	}
	if s, ok := args["msg"]; ok {
		a.msg = fmt.Sprint(s)
	}
	a.command = ArgStr(args, "reboot_command")
	switch v := args["search_paths"].(type) {
	case string:
		a.searchPaths = strings.Split(v, ",")
	case []any:
		a.searchPaths = listArg(v)
	}
	for key, dst := range map[string]*int{"pre_reboot_delay": &a.pre, "post_reboot_delay": &a.post,
		"reboot_timeout": &a.timeout, "connect_timeout": &a.connect} {
		if s := ArgStr(args, key); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				return a, fmt.Errorf("reboot: %s %q is not a whole number of seconds", key, s)
			}
			*dst = max(n, 0)
		}
	}
	return a, nil
}

// bootID runs the boot time command; a failure is Ansible's result (its "reboot" key included).
func bootID(ctx context.Context, m *Task, cmd string) (string, Result, error) {
	out, err := m.runPlain(ctx, cmd)
	if err != nil {
		return "", nil, err
	}
	if out.rc != 0 {
		return "", Result{"failed": true, "changed": false, "reboot": false, "msg": fmt.Sprintf(
			"reboot: failed to get host boot time info, rc: %d, stdout: %s, stderr: %s", out.rc, out.stdout, out.stderr)}, nil
	}
	return strings.TrimSpace(out.stdout), nil, nil
}

// reboot runs the reboot command; a lost connection is the reboot under way, as for Ansible.
// It returns a result only when the task ends here.
func (a rebootArgs) reboot(ctx context.Context, m *Task) (Result, error) {
	bin, rest, _ := strings.Cut(a.command, " ")
	if a.command == "" {
		bin, rest = "shutdown", fmt.Sprintf(`-r %d "%s"`, a.pre/60, a.msg)
	}
	path, fail, err := a.find(ctx, m, bin)
	if err != nil || fail != nil {
		return fail, err
	}
	out, err := m.runPlain(ctx, path+" "+rest)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, nil
	case out.rc != 0:
		return Result{"failed": true, "changed": false, "rebooted": false, "msg": fmt.Sprintf(
			"Reboot command failed. Error was: '%s, %s'", strings.TrimSpace(out.stdout), strings.TrimSpace(out.stderr))}, nil
	}
	return nil, nil
}

// find is the path of bin: bin itself when absolute, else the first of the search paths that
// holds it, as Ansible's find module looks.
func (a rebootArgs) find(ctx context.Context, m *Task, bin string) (string, Result, error) {
	if strings.HasPrefix(bin, "/") {
		return bin, nil, nil
	}
	var b strings.Builder
	for _, p := range a.searchPaths {
		f := quote(strings.TrimSuffix(p, "/") + "/" + bin)
		fmt.Fprintf(&b, "if [ -e %s ] || [ -L %s ]; then echo %s; exit 0; fi\n", f, f, f)
	}
	out, err := m.runPlain(ctx, b.String())
	if err != nil {
		return "", nil, err
	}
	if path := strings.TrimSpace(out.stdout); path != "" {
		return path, nil, nil
	}
	return "", Failure(fmt.Sprintf("Unable to find command %q in search paths: %s", bin, pyStrList(a.searchPaths))), nil
}

// validate waits for the host to come back: a new boot id, then a test command that succeeds.
func (a rebootArgs) validate(ctx context.Context, m *Task, before string) (Result, error) {
	end := time.Now().Add(time.Duration(a.timeout) * time.Second)
	booted := func(ctx context.Context) error {
		id, fail, err := bootID(ctx, m, a.bootTime)
		switch {
		case err != nil:
			return err
		case fail != nil:
			return fmt.Errorf("%v", fail["msg"])
		case id == "" || id == before:
			return fmt.Errorf("boot time has not changed")
		}
		return nil
	}
	tested := func(ctx context.Context) error {
		out, err := m.runPlain(ctx, a.test)
		if err == nil && out.rc != 0 {
			err = fmt.Errorf("Test command failed: %s %s", out.stderr, out.stdout)
		}
		return err
	}
	stale := true
	for _, step := range []struct {
		desc string
		try  func(context.Context) error
	}{{"last boot time check", booted}, {"post-reboot test command", tested}} {
		if err := a.until(ctx, m, end, &stale, step.try); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return Result{"failed": true, "changed": false, "rebooted": true,
				"msg": fmt.Sprintf("Timed out waiting for %s (timeout=%d)", step.desc, a.timeout)}, nil
		}
	}
	return Result{"changed": true, "rebooted": true}, nil
}

// until runs try until it succeeds or end passes, sleeping 2^n seconds and a random fraction
// between tries, at most 12, as Ansible. The host is dialled again before the first try of a
// wait (stale: the reboot left the old connection behind) and after any failed try.
func (a rebootArgs) until(ctx context.Context, m *Task, end time.Time, stale *bool, try func(context.Context) error) error {
	err := fmt.Errorf("no try before the timeout")
	for n := 0; time.Now().Before(end); n++ {
		if err = a.once(ctx, m, end, *stale, try); err == nil || ctx.Err() != nil {
			*stale = err != nil
			return err
		}
		*stale = true
		pause := time.Duration(min(1<<n, 12))*time.Second + time.Duration(rand.IntN(1000))*time.Millisecond
		if err := sleepCtx(ctx, min(pause, time.Until(end))); err != nil {
			return err
		}
	}
	return err
}

// once runs try within end, over a new connection (dialled within connect_timeout) when stale.
func (a rebootArgs) once(ctx context.Context, m *Task, end time.Time, stale bool, try func(context.Context) error) error {
	ctx, cancel := context.WithDeadline(ctx, end)
	defer cancel()
	if stale {
		if err := redialWithin(ctx, m, time.Duration(a.connect)*time.Second); err != nil {
			return err
		}
	}
	return try(ctx)
}

// pyStrList is a list of strings as Python prints it: ['a', 'b'].
func pyStrList(l []string) string {
	return "['" + strings.Join(l, "', '") + "']"
}
