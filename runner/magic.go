package runner

import (
	"slices"

	"github.com/kupgrade/kupgrade/playbooks"
)

// playMagic are the variables Ansible gives every host of a play about the run and the play:
// the hosts the play targets (--limit applied), the tags asked for, the limit itself (only
// when given), whether --diff is on, the play's name (its hosts when it has none) and the
// verbosity (kupgrade has no -v: 0).
func (e *playExec) playMagic(p *playbooks.Play, hosts []*hostState) map[string]any {
	all := make([]any, len(hosts))
	for i, h := range hosts {
		all[i] = h.name
	}
	runTags := toAnySlice(e.po.Tags)
	if len(runTags) == 0 {
		runTags = []any{"all"}
	}
	name := p.Name
	if name == "" {
		name = p.Hosts
	}
	m := map[string]any{"ansible_play_hosts_all": all, "ansible_run_tags": runTags,
		"ansible_skip_tags": toAnySlice(slices.Clone(e.po.SkipTags)), "ansible_diff_mode": e.po.Diff,
		"ansible_play_name": name, "ansible_verbosity": 0}
	if e.po.Limit != "" {
		m["ansible_limit"] = e.po.Limit
	}
	return m
}
