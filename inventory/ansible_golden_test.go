package inventory

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestAnsibleGolden loads every case of testdata/ansible and compares with ansible.json, what
// ansible-inventory, `ansible --list-hosts` and a debug of inventory_file made of the same case
// (recorded by integration's TestInventoryMatchesAnsible, which compares with Ansible live).
func TestAnsibleGolden(t *testing.T) {
	cases, err := os.ReadDir("testdata/ansible")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			dir, err := filepath.Abs(filepath.Join("testdata/ansible", c.Name()))
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]any
			data, err := os.ReadFile(filepath.Join(dir, "ansible.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			got := goldenView(t, dir)
			for _, part := range []string{"hostvars", "groups", "files", "limits"} {
				g, w := got[part].(map[string]any), want[part].(map[string]any)
				for k := range w {
					if !reflect.DeepEqual(g[k], w[k]) {
						t.Errorf("%s[%q] = %s, ansible says %s", part, k, jsonText(g[k]), jsonText(w[k]))
					}
				}
				for k := range g {
					if _, ok := w[k]; !ok {
						t.Errorf("%s[%q] = %s, ansible has none", part, k, jsonText(g[k]))
					}
				}
			}
		})
	}
}

func caseFile(t *testing.T, dir, name string) []string {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

// goldenView is the case as kupgrade resolves it, in ansible.json's shape, through JSON so that
// numbers compare by value.
func goldenView(t *testing.T, dir string) map[string]any {
	var paths []string
	for _, s := range caseFile(t, dir, "args") {
		paths = append(paths, filepath.Join(dir, s))
	}
	inv, err := LoadAll(paths...)
	if err != nil {
		t.Fatalf("LoadAll: %v", err)
	}
	hostvars := JSON(inv.Hosts).(map[string]any)["_meta"].(map[string]any)["hostvars"]
	groups, files, limits := map[string][]string{}, map[string][]string{}, map[string][]string{}
	for g, hosts := range inv.Groups {
		if len(hosts) > 0 {
			groups[g] = slices.Sorted(slices.Values(hosts))
		}
	}
	for _, h := range inv.Hosts {
		for _, k := range []string{"inventory_file", "inventory_dir"} {
			rel, err := filepath.Rel(dir, h.Vars[k].(string))
			if err != nil {
				t.Fatal(err)
			}
			files[h.Name] = append(files[h.Name], filepath.ToSlash(rel))
		}
	}
	for _, p := range caseFile(t, dir, "limits") {
		hosts, err := inv.Select(p)
		if err != nil {
			t.Errorf("Select(%q): %v", p, err)
		}
		limits[p] = slices.Sorted(slices.Values(hostNames(hosts)))
	}
	var out map[string]any
	data, err := json.Marshal(map[string]any{"hostvars": hostvars, "groups": groups, "files": files, "limits": limits})
	if err == nil {
		err = json.Unmarshal(data, &out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonText(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}
