package modules

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// cron is ansible.builtin.cron: a job (or with env=true a variable) in a user's crontab, read
// with crontab -l and installed with crontab, or in a cron_file (under /etc/cron.d unless
// absolute), with Ansible's "#Ansible: NAME" markers, its result (jobs, envs) and its check
// mode. crontab must be on the host even for a cron_file, as Ansible requires.

// cronArgs are the module's arguments.
type cronArgs struct {
	name, user, file, state, special string
	job                              *string
	times                            []string
	disabled, env                    bool
	after, before                    string
}

func readCronArgs(args map[string]any) cronArgs {
	o := cronArgs{name: ArgStr(args, "name"), user: ArgStr(args, "user"), file: ArgStr(args, "cron_file"),
		state: argStrOr(args, "state", "present"), special: ArgStr(args, "special_time"), job: optStr(args, "job"),
		disabled: argBool(args, "disabled", false), env: argBool(args, "env", false),
		after: ArgStr(args, "insertafter"), before: ArgStr(args, "insertbefore")}
	for _, k := range []string{"minute", "hour", "day", "month", "weekday"} {
		o.times = append(o.times, argStrOr(args, k, "*"))
	}
	if o.file != "" && !strings.HasPrefix(o.file, "/") && !strings.HasPrefix(o.file, "~") {
		o.file = path.Join("/etc/cron.d", o.file)
	}
	return o
}

var cronFileName = regexp.MustCompile(`(?i)^[A-Z0-9_-]+$`)

// refusal is Ansible's check of the arguments, in its order; "" when they are fine.
func (o cronArgs) refusal() string {
	install := o.state == "present"
	switch {
	case o.file == "/etc/crontab":
		return "Will not manage /etc/crontab via cron_file, see documentation."
	case o.special != "" && strings.Join(o.times, "") != "*****":
		return "You must specify time and date fields or special time."
	case install && o.file != "" && o.user == "":
		return "To use cron_file=... parameter you must specify user=... as well"
	case install && o.job == nil:
		return "You must specify 'job' to install a new cron job or variable"
	case install && (o.after != "" || o.before != "") && !o.env:
		return "Insertafter and insertbefore parameters are valid only with env=yes"
	}
	return ""
}

func modCron(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	o := readCronArgs(args)
	c, fail, err := readCrontab(ctx, m, o)
	if err != nil || fail != nil {
		return fail, err
	}
	if msg := o.refusal(); msg != "" {
		return Failure(msg), nil
	}
	warnings := []any{}
	if f := ArgStr(args, "cron_file"); f != "" && !cronFileName.MatchString(path.Base(f)) {
		warnings = append(warnings, fmt.Sprintf("Filename portion of cron_file (\"%s\") should consist solely of upper- and "+
			"lower-case letters, digits, underscores, and hyphens", path.Base(f)))
	}
	changed, removeFile, err := o.apply(c, &warnings)
	if err != nil {
		return Failure(err.Error()), nil
	}
	if removeFile {
		return removeCronFile(ctx, m, o, args, c)
	}
	if !changed && c.existing != "" && !strings.HasSuffix(c.existing, "\n") && !strings.HasSuffix(c.existing, "\r") {
		changed = true
	}
	jobs, envs := c.names()
	res := Result{"changed": changed, "failed": false, "jobs": jobs, "envs": envs, "warnings": warnings}
	if args["cron_file"] != nil {
		res["cron_file"] = ArgStr(args, "cron_file")
	}
	if changed && m.Diff {
		res["diff"] = cronDiff(o, c.existing, c.render(), "")
	}
	if changed && !m.Check {
		if fail, err := writeCrontab(ctx, m, o, c); err != nil || fail != nil {
			return fail, err
		}
	}
	return res, nil
}

// apply makes the call's change to c; removeFile is set when a cron_file is left empty.
func (o cronArgs) apply(c *crontab, warnings *[]any) (changed, removeFile bool, err error) {
	install := o.state == "present"
	if o.env {
		changed, err = c.env(o.name, deref(o.job), o.after, o.before, install)
		return changed, false, err
	}
	if !install {
		if found, _ := c.findJob(o.name, nil); len(found) == 0 {
			return false, false, nil
		}
		c.updateJob(o.name, nil)
		return true, c.file && c.isEmpty(), nil
	}
	if strings.ContainsAny(strings.Trim(*o.job, "\r\n"), "\r\n") {
		*warnings = append(*warnings, "Job should not contain line breaks")
	}
	job := c.job(o.times, *o.job, o.special, o.disabled)
	found, adopted := c.findJob(o.name, &job)
	switch {
	case len(found) == 0:
		c.lines = append(c.lines, cronMark+o.name, job)
		return true, false, nil
	case found[1] != job || adopted:
		c.updateJob(o.name, &job)
		return true, false, nil
	}
	return false, false, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
