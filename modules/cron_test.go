package modules

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// TestCrontabIsAnsibles replays cases recorded from ansible-core's cron module on one
// cron_file: the file it renders, changed, and the jobs and variables it returns.
func TestCrontabIsAnsibles(t *testing.T) {
	b, err := os.ReadFile("testdata/cron_ansible.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Base  string
		Cases []struct {
			Name, Kind, Render string
			Args               map[string]any
			Changed            bool
			Jobs, Envs         []any
		}
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	for _, c := range rec.Cases {
		o := readCronArgs(map[string]any{"name": c.Args["name"], "job": c.Args["job"], "special_time": c.Args["special"],
			"disabled": c.Args["disabled"], "insertafter": c.Args["after"], "env": c.Kind == "env" || c.Kind == "envrm",
			"state": map[bool]string{true: "absent", false: "present"}[c.Kind == "rm" || c.Kind == "envrm"]})
		if ts, ok := c.Args["times"].([]any); ok {
			o.times = nil
			for _, x := range ts {
				o.times = append(o.times, x.(string))
			}
		}
		ct := &crontab{existing: rec.Base, lines: splitLines(rec.Base), user: "root", file: true}
		var warnings []any
		changed, _, err := o.apply(ct, &warnings)
		jobs, envs := ct.names()
		if err != nil || changed != c.Changed || ct.render() != c.Render || !slices.Equal(jobs, c.Jobs) || !slices.Equal(envs, c.Envs) {
			t.Errorf("%s: changed %v, %v\n%q jobs %v envs %v\nAnsible: changed %v\n%q jobs %v envs %v", c.Name, changed, err,
				ct.render(), jobs, envs, c.Changed, c.Render, c.Jobs, c.Envs)
		}
	}
}

func TestCronRefusesAsAnsible(t *testing.T) {
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"name": "x", "job": "/x", "cron_file": "/etc/crontab", "user": "root"}, "Will not manage /etc/crontab via cron_file, see documentation."},
		{map[string]any{"name": "x", "job": "/x", "cron_file": "x"}, "To use cron_file=... parameter you must specify user=... as well"},
		{map[string]any{"name": "x"}, "You must specify 'job' to install a new cron job or variable"},
		{map[string]any{"name": "x", "job": "/x", "special_time": "daily", "hour": "1"}, "You must specify time and date fields or special time."},
		{map[string]any{"name": "x", "job": "/x", "insertafter": "A"}, "Insertafter and insertbefore parameters are valid only with env=yes"},
		{map[string]any{"name": "x", "state": "absent"}, ""},
	} {
		if got := readCronArgs(c.args).refusal(); got != c.want {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
	if f := readCronArgs(map[string]any{"name": "x", "cron_file": "kupgrade"}).file; f != "/etc/cron.d/kupgrade" {
		t.Errorf("a relative cron_file is %q, want it under /etc/cron.d", f)
	}
}
