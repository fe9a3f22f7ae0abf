package playbooks

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// withLoops are the with_* loops kupgrade runs (the runner's lookups of the same names).
var withLoops = []string{"items", "list", "dict", "first_found", "nested", "indexed_items", "flattened",
	"together", "sequence", "subelements", "random_choice", "fileglob"}

// loopKey decodes loop and the with_* loops. A with_* loop's value is its lookup's terms, as
// Ansible passes them: a mapping (with_dict, with_first_found), a list, or any text, a bare
// word included (with_items: some_list loops once over the text "some_list", as in
// ansible-core 2.14), which the runner renders and turns into items.
func (d *decoder) loopKey(t *Task, p *pair, label func() string, where func(string) string) error {
	if t.Loop != nil {
		return d.errAt(p.k, "%s has two loops", label())
	}
	with, isWith := strings.CutPrefix(p.key, "with_")
	if !isWith {
		with = ""
	}
	t.LoopWith, t.LoopDict = with, p.key == "with_dict"
	r, err := d.deref(p.v)
	if err != nil || !isWith {
		if err == nil {
			t.Loop, err = d.loop(p.v, where(p.key))
		}
		return err
	}
	switch {
	case r.Kind == yaml.ScalarNode && !isNull(r):
		t.Loop = r.Value
		return d.checkTemplate(r, r.Value, where(p.key))
	case r.Kind == yaml.MappingNode:
		if t.Loop, err = d.value(r); err == nil {
			err = d.checkArgTemplates(r, t.Loop, where(p.key))
		}
		return err
	}
	t.Loop, err = d.loop(p.v, where(p.key))
	return err
}
