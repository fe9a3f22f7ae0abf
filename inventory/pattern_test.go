package inventory

import (
	"errors"
	"slices"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
)

const limitInventory = `
all:
  hosts:
    bastion:
  children:
    controllers:
      hosts:
        controller-0:
        controller-1:
    workers:
      hosts:
        worker-0:
        worker-1:
        worker-10:
    storage:
      hosts:
        storage-0:
    empty:
    zone_a:
      hosts:
        controller-0:
        worker-0:
        storage-0:
`

func TestSelect(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": limitInventory})
	all := []string{"bastion", "controller-0", "controller-1", "worker-0", "worker-1", "worker-10", "storage-0"}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"", all},
		{"all", all},
		{"*", all},
		{"controllers", []string{"controller-0", "controller-1"}},
		{"worker-1", []string{"worker-1"}},
		{"controllers:storage", []string{"controller-0", "controller-1", "storage-0"}},
		{"storage,controllers", []string{"controller-0", "controller-1", "storage-0"}},
		{"storage, controllers", []string{"controller-0", "controller-1", "storage-0"}},
		{"all:!zone_a", []string{"bastion", "controller-1", "worker-1", "worker-10"}},
		{"!zone_a", []string{"bastion", "controller-1", "worker-1", "worker-10"}},
		{"zone_a:&workers", []string{"worker-0"}},
		{"&workers:zone_a", []string{"worker-0"}},
		{"!controller-0:zone_a:controllers", []string{"controller-1", "worker-0", "storage-0"}},
		{"worker-*", []string{"worker-0", "worker-1", "worker-10"}},
		{"worker-?", []string{"worker-0", "worker-1"}},
		{"controller-[1]", []string{"controller-1"}},
		{"*-0:!storage", []string{"controller-0", "worker-0"}},
		{"~worker-1.*", []string{"worker-1", "worker-10"}},
		{"~(controller|storage)-0", []string{"controller-0", "storage-0"}},
		{"zone*", []string{"controller-0", "worker-0", "storage-0"}},
		{"controllers:controllers", []string{"controller-0", "controller-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			got, err := inv.Select(tt.pattern)
			if err != nil {
				t.Fatalf("Select: %v", err)
			}
			if names := hostNames(got); !slices.Equal(names, tt.want) {
				t.Errorf("Select(%q) = %v, want %v", tt.pattern, names, tt.want)
			}
		})
	}
}

func TestSelectErrors(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": limitInventory})
	tests := []struct{ pattern, want string }{
		{"contrllers", `--limit "contrllers" matches no host or group; did you mean "controllers"?`},
		{"controllers:!wrokers", `--limit "controllers:!wrokers": "wrokers" matches no host or group; did you mean "workers"?`},
		{"nothing-like-it", `--limit "nothing-like-it" matches no host or group; kupgrade inventory list shows the hosts and groups`},
		{"db-*", `--limit "db-*" matches no host or group; kupgrade inventory list shows the hosts and groups`},
		{"empty", `--limit "empty": group "empty" has no hosts; add hosts to it or leave it out of --limit`},
		{"controllers:&workers", `--limit "controllers:&workers" leaves no host; check the & and ! terms; kupgrade inventory list shows the groups of each host`},
		{"all:!all", `--limit "all:!all" leaves no host; check the & and ! terms; kupgrade inventory list shows the groups of each host`},
		{"controllers:!", `--limit "controllers:!" has an empty & or ! term; write a group or host name after & and !`},
		{"worker-[", `--limit "worker-[": bad term "worker-[": syntax error in pattern; globs use * ? [abc]; a regular expression starts with ~`},
		{"~(", "--limit \"~(\": bad term \"~(\": error parsing regexp: missing closing ): `(`; globs use * ? [abc]; a regular expression starts with ~"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			_, err := inv.Select(tt.pattern)
			if err == nil {
				t.Fatal("Select succeeded, want an error")
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
			if _, ok := err.(*Error); !ok || !errors.Is(err, fault.ErrBadInput) {
				t.Errorf("error %T is not a bad-input *Error", err)
			}
		})
	}
}

func TestSelectNamesWithColons(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": `
all:
  hosts:
    "fe80::1":
    "[2001:db8::2]:2022":
    plain:
`})
	for _, name := range []string{"fe80::1", "2001:db8::2"} {
		got, err := inv.Select(name)
		if err != nil || len(got) != 1 || got[0].Name != name {
			t.Errorf("Select(%q) = %v, %v; want that one host", name, hostNames(got), err)
		}
	}
}

func TestSelectSubscripts(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": `
all:
  children:
    web:
      hosts: {w3: , w1: , w2: }
      children:
        edge:
          hosts: {e1: }
`})
	for _, c := range []struct {
		pattern string
		want    []string
	}{
		{"web[0]", []string{"w3"}},         // the group's own hosts first, in the group's order
		{"web[-1]", []string{"e1"}},        // then its children's
		{"web[1:2]", []string{"w1", "w2"}}, // inclusive end
		{"web[2:]", []string{"w2", "e1"}},
		{"web[1:99]", []string{"w1", "w2", "e1"}},
		{"web:!web[0]", []string{"w1", "w2", "e1"}},
		{"w[13][0]", []string{"w3"}},
	} {
		hosts, err := inv.Select(c.pattern)
		if err != nil {
			t.Errorf("Select(%q): %v", c.pattern, err)
			continue
		}
		got := hostNames(hosts)
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("Select(%q) = %v, want %v", c.pattern, got, want)
		}
	}
	_, err := inv.Select("web[4]")
	if err == nil || err.Error() != `--limit "web[4]": web[4] is out of range: "web" matches 4 hosts; index from 0 to 3, or from -1 to -4 counting from the end` {
		t.Errorf("Select(web[4]) error = %v", err)
	}
}
