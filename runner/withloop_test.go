package runner_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/testtree"
	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestWithLoops: every with_* loop gives the items ansible-playbook 2.14 gives for the same
// terms (recorded from it), a bare word included (with_items: some_list loops over the text).
func TestWithLoops(t *testing.T) {
	cases := []struct{ name, loop, msg, want string }{
		{"bare", "with_items: some_list", "{{ item | to_json }}", `"some_list"`},
		{"items", `with_items: [[1, 2], 3, "{{ some_list }}"]`, "{{ item | to_json }}", `1 2 3 "a" "b"`},
		{"nested", `with_nested: [[1, 2], "{{ some_list }}"]`, "{{ item | to_json }}", `[1, "a"] [1, "b"] [2, "a"] [2, "b"]`},
		{"indexed", `with_indexed_items: "{{ some_list }}"`, "{{ item | to_json }}", `[0, "a"] [1, "b"]`},
		{"flattened", "with_flattened: [[1, [2, [3]]], x]", "{{ item | to_json }}", `1 2 3 "x"`},
		{"together", `with_together: [[1, 2, 3], "{{ some_list }}"]`, "{{ item | to_json }}", `[1, "a"] [2, "b"] [3, null]`},
		{"sequence", "with_sequence: start=1 end=7 stride=3 format=n%02d", "{{ item | to_json }}", `"n01" "n04" "n07"`},
		{"short", `with_sequence: "2-6/2:x%d"`, "{{ item | to_json }}", `"x2" "x4" "x6"`},
		{"count", "with_sequence: count=2", "{{ item | to_json }}", `"1" "2"`},
		{"subelements", `with_subelements: ["{{ users }}", keys, {skip_missing: true}]`, "{{ item.0.name }}:{{ item.1 }}", "ann:k1 ann:k2 bob:k3"},
		{"dict", `with_dict: "{{ d }}"`, "{{ item | to_json }}", `{"key": "x", "value": 1} {"key": "y", "value": 2}`},
		{"random", "with_random_choice: [1, 2]", "{{ item in [1, 2] }}", "True"},
		{"first_found", "with_first_found: [first.yml, second.yml]", "{{ item | basename }}", "second.yml"},
		{"first_found_skip", "with_first_found: [{files: [none.yml], skip: true}]", "{{ item }}", ""},
		{"fileglob", `with_fileglob: "*.conf"`, "{{ item | basename }}", "a.conf b.conf"}, // Ansible: the folder's order
	}
	var pb strings.Builder
	pb.WriteString(`- hosts: all
  gather_facts: false
  vars:
    some_list: [a, b]
    users: [{name: ann, keys: [k1, k2]}, {name: bob, keys: [k3]}, {name: cid}]
    d: {x: 1, y: 2}
  tasks:
`)
	for _, c := range cases {
		pb.WriteString("    - {name: " + c.name + `, debug: {msg: "` + c.msg + `"}, ` + c.loop + ", register: " + c.name + "}\n")
	}
	dir := testtree.Write(t, map[string]string{"inventory.yml": "all:\n  hosts:\n    h1:\n", "site.yml": pb.String(),
		"files/a.conf": "", "files/b.conf": "", "files/c.txt": "", "files/second.yml": ""})
	recap, err, _ := playTree(t, &runnertest.LocalDialer{}, dir, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := recap.Hosts["h1"]; r.Skipped != 1 {
		t.Errorf("recap %+v: want the loop without items (first_found_skip) skipped, as Ansible does", *r)
	}
	for _, c := range cases {
		res, _ := regField(t, recap, "h1", c.name, "results").([]any)
		var msgs []string
		for _, r := range res {
			msgs = append(msgs, jinja.Str(r.(map[string]any)["msg"])) // as join writes it
		}
		if c.name == "fileglob" {
			slices.Sort(msgs)
		}
		if got := strings.Join(msgs, " "); got != c.want {
			t.Errorf("%s (%s): items %q, want %q", c.name, c.loop, got, c.want)
		}
	}
}
