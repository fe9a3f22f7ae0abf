package inventory

import (
	"math/big"
	"slices"
	"testing"
)

func TestShlexSplit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`h1 a=1 b="x y"`, []string{"h1", "a=1", "b=x y"}},
		{`h1 a='x "y"' b="q\"uote" c="back\\slash" d="keep\n"`, []string{"h1", `a=x "y"`, `b=q"uote`, `c=back\slash`, `d=keep\n`}},
		{`h1 a=b#c d=e`, []string{"h1", "a=b"}},
		{`h1 a="b#c" # comment`, []string{"h1", "a=b#c"}},
		{`h1 a=x\ y e=""`, []string{"h1", "a=x y", "e="}},
		{`h1 ""`, []string{"h1", ""}},
	} {
		got, err := shlexSplit(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("shlexSplit(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{`h1 a="open`, `h1 a='open`, `h1 a=\`} {
		if got, err := shlexSplit(bad); err == nil {
			t.Errorf("shlexSplit(%q) = %q, want an error", bad, got)
		}
	}
}

func TestPyValue(t *testing.T) {
	huge, _ := new(big.Int).SetString("123456789012345678901", 10)
	for _, c := range []struct {
		in   string
		want any
	}{
		{"5", 5}, {"-7", -7}, {"+3", 3}, {"0x1F", 31}, {"0o17", 15}, {"0b101", 5}, {"1_000", 1000},
		{"1.5", 1.5}, {"1e3", 1000.0}, {".5", 0.5}, {"5.", 5.0}, {"007", "007"}, {"0", 0}, {"00", 0},
		{"1.20.3", "1.20.3"}, {"True", true}, {"False", false}, {"None", nil}, {"true", "true"}, {"yes", "yes"},
		{"'5'", "5"}, {`"a" 'b'`, "ab"}, {`'tab\there'`, "tab\there"}, {`r'a\nb'`, `a\nb`}, {`b'y'`, "y"},
		{`u'x'`, "x"}, {`'\x41\101\u00e9'`, "AAé"}, {`'\d'`, `\d`}, {"f'x'", "f'x'"},
		{"[1, 'two', 3.0]", []any{1, "two", 3.0}}, {"(1, 2)", []any{1, 2}}, {"(1,)", []any{1}}, {"(1)", 1},
		{"()", []any{}}, {"[]", []any{}}, {"1,2", []any{1, 2}}, {"[1,]", []any{1}},
		{"{'a': 1, 'b': [True, None]}", map[string]any{"a": 1, "b": []any{true, nil}}},
		{"{1: 'x', None: 2}", map[string]any{"1": "x", "null": 2}}, {"{}", map[string]any{}},
		{"8080 # comment", 8080}, {"abc # kept", "abc # kept"}, {"1+2", "1+2"}, {"--1", "--1"},
		{"-'a'", "-'a'"}, {"[1,", "[1,"}, {"1j", "1j"}, {"hello world", "hello world"}, {"  7", 7},
		{"123456789012345678901", huge}, {"set()", []any{}}, {"x=y", "x=y"}, {"", ""},
	} {
		if got := pyValue(c.in); !equalJSON(got, c.want) {
			t.Errorf("pyValue(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

func TestINIErrors(t *testing.T) {
	for _, c := range []struct {
		name, ini, want string
	}{
		{"unknown section type", "[web:host]\nh1\n",
			`hosts.ini:1:1: section [web:host] has the unknown type "host"; a section is [group], [group:vars] or [group:children]`},
		{"spaces in a section", "[web servers]\n",
			`hosts.ini:1:1: invalid section header [web servers]; write [group], [group:vars] or [group:children], without spaces`},
		{"vars of an undefined group", "h1\n\n[db:vars]\nx=1\n",
			`hosts.ini:3:1: [db:vars] sets variables of group "db", which is never defined; define the group with a [db] section (or [db:children]), or fix the name`},
		{"undefined child", "[k8s:children]\nworkers\n",
			`hosts.ini:2:1: [k8s:children] names group "workers", which is never defined; define it with a [workers] section listing its hosts, or remove it from [k8s:children]`},
		{"host variable without =", "[web]\n  web1 http_port\n",
			`hosts.ini:2:3: expected name=value after host "web1", got "http_port"; write host variables as name=value after the host; quote values with blanks: name="a b"`},
		{"unclosed quote", "web1 motd=\"hello\n",
			`hosts.ini:1:1: cannot split the host line: no closing quotation; quote values that hold blanks: name="a b"`},
		{"vars line without =", "[web]\nh\n[web:vars]\njust-a-word\n",
			`hosts.ini:4:1: expected name=value in [web:vars], got "just-a-word"; write one name=value per line in a :vars section`},
		{"bad range", "[web]\nweb[3:1]\n",
			`hosts.ini:2:1: host "web[3:1]": range [3:1] is not an ascending range of numbers; write ranges as [01:10] or [a:f], optionally [1:10:2]`},
		{"host ending in :", "[web]\nweb1:\n",
			`hosts.ini:2:1: host "web1:" ends with ':'; write host:PORT with a port number, or drop the ':'`},
		{"bad port var", "[web]\nweb1 ansible_port=http\n",
			`hosts.ini:2:1: ansible_port of host "web1" must be a port between 1 and 65535, not http; write a port number such as 22`},
		{"cycle", "[a:children]\nb\n[b:children]\na\n",
			`hosts.ini:4:1: group "a" is its own ancestor: a -> b -> a; remove "a" from the children of "b"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeTree(t, map[string]string{"hosts.ini": c.ini})
			path = path[:len(path)-len("inventory.yml")] + "hosts.ini"
			_, err := Load(path)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if got := relErr(path, err); got != c.want {
				t.Errorf("error\n got  %s\n want %s", got, c.want)
			}
		})
	}
}

func TestINIHostsAndPorts(t *testing.T) {
	path := writeTree(t, map[string]string{"hosts": `
top1
[web]
top1
web-[a:c]:2222 tier=front
web-[01:09:4]
[web]
web-a ansible_port=2300
`})
	path = path[:len(path)-len("inventory.yml")] + "hosts"
	inv, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := hostNames(inv.Hosts), []string{"top1", "web-a", "web-b", "web-c", "web-01", "web-05", "web-09"}; !slices.Equal(got, want) {
		t.Errorf("hosts = %v, want %v", got, want)
	}
	if got := inv.Groups["ungrouped"]; len(got) != 0 {
		t.Errorf("ungrouped = %v: top1 is in web too, so Ansible drops it from ungrouped", got)
	}
	a, _ := inv.Host("web-a")
	b, _ := inv.Host("web-b")
	if a.Port() != 2300 || b.Port() != 2222 || b.Vars["tier"] != "front" {
		t.Errorf("ports %d, %d, tier %v: want 2300 (the later variable wins), 2222, front", a.Port(), b.Port(), b.Vars["tier"])
	}
	if a.Vars["inventory_file"] != path || a.KeyFile() != "" {
		t.Errorf("inventory_file = %v, want %s", a.Vars["inventory_file"], path)
	}
}
