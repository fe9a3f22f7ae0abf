package inventory

import (
	"slices"
	"testing"
)

func TestLoadGroupsAndChildren(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": `
all:
  hosts:
    lonely:
    bastion:
  children:
    k8s:
      children:
        kube_control_plane:
          hosts:
            cp-1:
            cp-2:
        kube_node:
          hosts:
            w-1:
            cp-1:
          children:
            gpu:
              hosts:
                g-1:
    bastions:
      hosts:
        bastion:
`})
	if got, want := hostNames(inv.Hosts), []string{"lonely", "bastion", "cp-1", "cp-2", "w-1", "g-1"}; !slices.Equal(got, want) {
		t.Errorf("Hosts = %v, want %v (file order, each once)", got, want)
	}
	groups := map[string][]string{
		"all":                {"lonely", "bastion", "cp-1", "cp-2", "w-1", "g-1"},
		"k8s":                {"cp-1", "cp-2", "w-1", "g-1"},
		"kube_node":          {"w-1", "cp-1", "g-1"}, // its own hosts in file order, then gpu's (ansible-core 2.14)
		"kube_control_plane": {"cp-1", "cp-2"},
		"gpu":                {"g-1"},
		"bastions":           {"bastion"},
		"ungrouped":          {"lonely"},
	}
	for g, want := range groups {
		if got := inv.Groups[g]; !slices.Equal(got, want) {
			t.Errorf("Groups[%q] = %v, want %v", g, got, want)
		}
	}
	if got, want := inv.GroupNames(), []string{"all", "bastions", "gpu", "k8s", "kube_control_plane", "kube_node", "ungrouped"}; !slices.Equal(got, want) {
		t.Errorf("GroupNames = %v, want %v", got, want)
	}
	hostGroups := map[string][]string{
		"g-1":     {"all", "gpu", "k8s", "kube_node"},
		"cp-1":    {"all", "k8s", "kube_control_plane", "kube_node"},
		"lonely":  {"all", "ungrouped"},
		"bastion": {"all", "bastions"},
	}
	for name, want := range hostGroups {
		h, ok := inv.Host(name)
		if !ok {
			t.Fatalf("Host(%q) not found", name)
		}
		if !slices.Equal(h.Groups, want) {
			t.Errorf("%s.Groups = %v, want %v", name, h.Groups, want)
		}
	}
	if _, ok := inv.Host("nope"); ok {
		t.Error(`Host("nope") found a host`)
	}
}

func TestLoadHostKeys(t *testing.T) {
	tests := []struct {
		key   string
		names []string
		port  int
	}{
		{"node[1:3]", []string{"node1", "node2", "node3"}, 22},
		{"node[01:03]", []string{"node01", "node02", "node03"}, 22},
		{"n[0:4:2]", []string{"n0", "n2", "n4"}, 22},
		{"rack[a:b]-[1:2]", []string{"racka-1", "racka-2", "rackb-1", "rackb-2"}, 22},
		{"web:2222", []string{"web"}, 2222},
		{"web[1:2]:2200", []string{"web1", "web2"}, 2200},
		{"10.0.0.1", []string{"10.0.0.1"}, 22},
		{`"[fe80::1]:2022"`, []string{"fe80::1"}, 2022},
		{`"fe80::1"`, []string{"fe80::1"}, 22},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			inv := mustLoad(t, map[string]string{"inventory.yml": "all:\n  hosts:\n    " + tt.key + ":\n"})
			if got := hostNames(inv.Hosts); !slices.Equal(got, tt.names) {
				t.Fatalf("hosts = %v, want %v", got, tt.names)
			}
			for _, h := range inv.Hosts {
				if h.Port() != tt.port {
					t.Errorf("%s.Port() = %d, want %d", h.Name, h.Port(), tt.port)
				}
			}
		})
	}
}

func TestLoadTopLevelGroupsJoinAll(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": `
controllers:
  hosts:
    c1:
workers:
  hosts:
    w1:
all:
  vars:
    kupgrade_cluster: edge
`})
	if got := inv.Groups["all"]; !slices.Equal(got, []string{"c1", "w1"}) {
		t.Errorf("all = %v, want [c1 w1]", got)
	}
	if inv.Cluster() != "edge" {
		t.Errorf("Cluster() = %q, want edge", inv.Cluster())
	}
	if got := hostNames(inv.Controllers()); !slices.Equal(got, []string{"c1"}) {
		t.Errorf("Controllers() = %v, want [c1]", got)
	}
}

func TestLoadEmptyGroupsAndNullValues(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": `
all:
  vars:
  children:
    empty:
    also_empty:
      hosts:
      children:
  hosts:
    h1:
`})
	if got, ok := inv.Groups["empty"]; !ok || len(got) != 0 {
		t.Errorf(`Groups["empty"] = %v, %v; want an empty group`, got, ok)
	}
	if _, err := inv.Select("empty"); err == nil {
		t.Error(`Select("empty") on a group with no hosts succeeded`)
	}
}
