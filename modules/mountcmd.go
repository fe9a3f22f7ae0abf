package modules

import (
	"context"
	"strings"
)

// cmd runs a mount command, its output as Ansible's message when it fails ("" when it ran).
func (mo *mountOp) cmd(ctx context.Context, cmd string) (int, string, error) {
	rc, so, se, err := mo.m.runRaw(ctx, cLocale+cmd)
	if rc == 0 {
		return 0, "", err
	}
	return rc, so + se, err
}

// fstabArgs names the fstab file for mount when it is not /etc/fstab.
func (mo *mountOp) fstabArgs() string {
	if mo.a.fstab == "" || mo.a.fstab == "/etc/fstab" {
		return ""
	}
	return " -T " + hostPath(mo.a.fstab)
}

// remount is Ansible's: mount -o remount (with the options when the state is remounted), and
// when that fails umount then mount, unless options were asked for.
func (mo *mountOp) remount(ctx context.Context) (int, string, Result, error) {
	opt := "remount"
	if mo.state == "remounted" && mo.a.opts != "defaults" {
		opt += "," + mo.a.opts
	}
	name := " " + quote(mo.a.name)
	rc, msg, err := mo.cmd(ctx, "mount -o "+quote(opt)+mo.fstabArgs()+name)
	if err != nil || rc == 0 {
		return rc, msg, nil, err
	}
	if opt != "remount" {
		return rc, msg, Failure(remountFailed), nil
	}
	if rc, msg, err = mo.cmd(ctx, "umount"+name); err != nil || rc != 0 {
		return rc, msg, nil, err
	}
	rc, msg, err = mo.cmd(ctx, "mount"+mo.fstabArgs()+name)
	return rc, msg, nil, err
}

// undo puts back the fstab a failed mount found (each line ending with a newline, as Ansible
// writes its saved lines) and removes the folders the call made, newest first; as Ansible, it
// ignores its own failures.
func (mo *mountOp) undo(ctx context.Context) error {
	var old strings.Builder
	for _, l := range fstabLines(mo.old) {
		old.WriteString(strings.TrimSuffix(l, "\n") + "\n")
	}
	if _, _, _, err := writeRemote(ctx, mo.m, mo.a.fstab, writeOpts{data: []byte(old.String())}); err != nil {
		return err
	}
	var rm []string
	for i := len(mo.seen.created) - 1; i >= 0; i-- {
		rm = append(rm, "rmdir -- "+quote(mo.seen.created[i]))
	}
	if len(rm) == 0 {
		return nil
	}
	_, _, _, err := mo.m.runRaw(ctx, strings.Join(rm, " && "))
	return err
}
