package runner_test

import (
	"os"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/testtree"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestLookups: lookup(), query() and q() give what ansible-playbook 2.14 gives for the same
// play (recorded from it): env, file, template, pipe, vars, first_found, fileglob, items, dict
// inventory_hostnames and varnames, a role's files found in the role first.
func TestLookups(t *testing.T) {
	t.Setenv("KUPGRADE_LOOKUP_TEST", "from env")
	cases := []struct{ expr, want string }{
		{"{{ lookup('env', 'KUPGRADE_LOOKUP_TEST') }}|{{ lookup('env', 'NOPE_X', default='dflt') }}", "from env|dflt"},
		{"{{ lookup('file', 'f.txt') }}|", "  file body|"},
		{"{{ lookup('template', 't.j2') }}|", "hello h1\n|"},
		{"{{ lookup('pipe', 'echo hi; echo there') }}|", "hi\nthere|"},
		{"{{ lookup('vars', 'who') }} {{ lookup('vars', 'l') }} {{ lookup('vars', 'nope', default='x') }}", "h1 [1, 2] x"},
		{"{{ lookup('first_found', ['nope.txt', 'f.txt']) | basename }}", "f.txt"},
		{"{{ query('fileglob', '*.txt') | map('basename') | join(',') }}", "r.txt"}, // the role's files first
		{"{{ lookup('items', l) }} {{ query('items', l) }} {{ lookup('items', ['a', 'b']) }}", "[1, 2] [1, 2] a,b"},
		{"{{ lookup('dict', d) }} {{ q('dict', d) }}", "{'key': 'a', 'value': 1} [{'key': 'a', 'value': 1}]"},
		{"{{ lookup('inventory_hostnames', 'all') }} {{ query('inventory_hostnames', 'h1:h3') }}", "h1,h2,h3 ['h1', 'h3']"},
		{"{{ lookup('file', 'r.txt') }}", "from the role"},
		{"{{ query('together', *[l, ['a']]) }} {{ lookup('nested', *[l, ['x']], wantlist=True) }}", "[[1, 'a'], [2, None]] [[1, 'x'], [2, 'x']]"},
		{"{{ query('varnames', '^[ldw]') }} {{ lookup('varnames', '^u', '^who$') }}", "['who', 'l', 'd'] us,who"},
		{"{{ 'keys' in q('subelements', us, 'keys')[0][0] }} {{ q('subelements', us, 'keys') | map('last') | join(',') }}", "False k1,k2"},
	}
	var role strings.Builder
	for i, c := range cases {
		role.WriteString("- {name: l" + fmtInt(i) + `, debug: {msg: "` + strings.ReplaceAll(c.expr, `"`, `\"`) + `"}}` + "\n")
	}
	dir := testtree.Write(t, map[string]string{
		"inventory.yml": threeHosts, "files/f.txt": "  file body  \n", "templates/t.j2": "hello {{ who }}\n",
		"roles/r/tasks/main.yml": role.String(), "roles/r/files/r.txt": "from the role\n",
		"site.yml": "- hosts: h1\n  gather_facts: false\n  vars: {who: \"{{ inventory_hostname }}\", l: [1, 2], d: {a: 1}, us: [{name: ann, keys: [k1, k2]}]}\n  roles: [r]\n",
	})
	t.Chdir(os.TempDir()) // pipe runs in the playbook's folder, not the test's
	_, err, rec := playTree(t, &runnertest.LocalDialer{}, dir, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if e, _ := rec.find("h1", "r : l"+fmtInt(i)); e.Msg != c.want {
			t.Errorf("%s: %q, want %q (%s)", c.expr, e.Msg, c.want, e.Event)
		}
	}
}
