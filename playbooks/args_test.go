package playbooks

import (
	"maps"
	"testing"
)

// splitKeyValues reads the old key=value form as Ansible's parse_kv does (outputs checked with
// ansible-playbook 2.14's debug of each argument).
func TestSplitKeyValues(t *testing.T) {
	for in, want := range map[string]map[string]string{
		`src=a dest="b c"`:                     {"src": "a", "dest": "b c"},
		`msg="{{ x | join(" ") }}"`:            {"msg": `{{ x | join(" ") }}`},
		`msg="it's {{ a }}"`:                   {"msg": "it's {{ a }}"},
		`msg={{ a | default("b c") }} other=1`: {"msg": `{{ a | default("b c") }}`, "other": "1"},
	} {
		got, err := splitKeyValues(in)
		if err != nil || !maps.Equal(got, want) {
			t.Errorf("splitKeyValues(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := splitKeyValues(`msg="open`); err == nil {
		t.Error("an unterminated quote was accepted")
	}
}
