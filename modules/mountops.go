package modules

import (
	"context"
	"fmt"
)

// mountOp is one call of mount on one host: what the probe read and what the call did.
type mountOp struct {
	m          *Task
	a          mountArgs
	state      string
	old        []byte // fstab as it was
	seen       mountSeen
	backup     bool
	backupFile string
}

// cLocale runs a command as Ansible's run_command does, its messages in the C locale.
const cLocale = "LANG=C LC_ALL=C LC_MESSAGES=C "

// remountFailed is Ansible's message when a remount with options fails.
const remountFailed = "Options were specified with remounted, but the remount command failed. Failing in order to prevent " +
	"an unexpected mount result. Try replacing this command with a \"state: unmounted\" followed by a \"state: mounted\" " +
	"using the full desired mount options instead."

func (mo *mountOp) run(ctx context.Context) (bool, Result, error) {
	check := mo.m.Check
	switch mo.state {
	case "absent_from_fstab":
		return mo.unset(ctx)
	case "absent":
		return mo.absent(ctx)
	case "present":
		return mo.set(ctx)
	case "mounted":
		return mo.mounted(ctx)
	case "unmounted":
		if !mo.seen.mounted || check {
			return mo.seen.mounted, nil, nil
		}
		return mo.must(ctx, true, "Error unmounting %s: %s", "umount "+quote(mo.a.name))
	case "remounted":
		if check {
			return true, nil, nil
		}
		rc, msg, fail, err := mo.remount(ctx)
		if err != nil || fail != nil || rc == 0 {
			return true, fail, err
		}
		return false, Failure(fmt.Sprintf("Error remounting %s: %s", mo.a.name, msg)), nil
	}
	return false, Failure(fmt.Sprintf("mount: state %s is not supported by kupgrade", mo.state)), nil
}

// must runs cmd and fails with msgf (the mount point, the command's output) when it fails.
func (mo *mountOp) must(ctx context.Context, changed bool, msgf, cmd string) (bool, Result, error) {
	rc, so, se, err := mo.m.runRaw(ctx, cLocale+cmd)
	if err != nil || rc == 0 {
		return changed, nil, err
	}
	return false, Failure(fmt.Sprintf(msgf, mo.a.name, so+se)), nil
}

// set writes a's line into fstab (Ansible's set_mount).
func (mo *mountOp) set(ctx context.Context) (bool, Result, error) {
	content, changed := setFstab(mo.old, mo.a)
	if !changed || mo.m.Check {
		return changed, nil, nil
	}
	bk, _, fail, err := writeRemote(ctx, mo.m, mo.a.fstab, writeOpts{data: []byte(content), backup: mo.backup})
	mo.backupFile = bk
	return changed, fail, err
}

// unset removes a's entries from fstab (Ansible's unset_mount).
func (mo *mountOp) unset(ctx context.Context) (bool, Result, error) {
	content, changed := unsetFstab(mo.old, mo.a)
	if !changed || mo.m.Check {
		return changed, nil, nil
	}
	_, _, fail, err := writeRemote(ctx, mo.m, mo.a.fstab, writeOpts{data: []byte(content), backup: mo.backup})
	return changed, fail, err
}

// absent removes the entries, then unmounts the point and removes its folder.
func (mo *mountOp) absent(ctx context.Context) (bool, Result, error) {
	changed, fail, err := mo.unset(ctx)
	if err != nil || fail != nil || !changed || mo.m.Check {
		return changed, fail, err
	}
	if mo.seen.mounted {
		if _, fail, err := mo.must(ctx, true, "Error unmounting %s: %s", "umount "+quote(mo.a.name)); err != nil || fail != nil {
			return false, fail, err
		}
	}
	n := quote(mo.a.name)
	return mo.must(ctx, true, "Error rmdir %s: %s", "[ ! -e "+n+" ] || rmdir -- "+n)
}

// mounted writes the line, then mounts (or remounts when the line changed); a failed mount
// puts fstab back and removes the folders the call made.
func (mo *mountOp) mounted(ctx context.Context) (bool, Result, error) {
	changed, fail, err := mo.set(ctx)
	if err != nil || fail != nil {
		return false, fail, err
	}
	var rc int
	var msg string
	switch {
	case mo.seen.mounted && changed && !mo.m.Check:
		if rc, msg, fail, err = mo.remount(ctx); err != nil || fail != nil {
			return false, fail, err
		}
	case !mo.seen.mounted:
		changed = true
		if !mo.m.Check {
			if rc, msg, err = mo.cmd(ctx, "mount"+mo.fstabArgs()+" "+quote(mo.a.name)); err != nil {
				return false, nil, err
			}
		}
	}
	if rc == 0 {
		return changed, nil, nil
	}
	return false, Failure(fmt.Sprintf("Error mounting %s: %s", mo.a.name, msg)), mo.undo(ctx)
}
