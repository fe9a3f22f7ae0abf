package inventory

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n got:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestRender(t *testing.T) {
	inv, err := Load(filepath.Join("testdata", "cluster", "inventory.yml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, limit string }{
		{"all", ""},
		{"workers", "workers:storage-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hosts, err := inv.Select(tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var table bytes.Buffer
			if err := WriteTable(&table, hosts); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name+".txt", table.Bytes())
			js, err := json.MarshalIndent(JSON(hosts), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name+".json", append(js, '\n'))
		})
	}
}

// Values encoding/json refuses (.inf, .nan) must not make `inventory list -o json` fail.
func TestJSONEncodesEveryValue(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": `
all:
  hosts:
    h:
      big: .inf
      odd: [.nan, {1: one}]
    bare:
`})
	out, err := json.Marshal(JSON(inv.Hosts))
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	want := `{"_meta":{"hostvars":{"bare":{},"h":{"big":"+Inf","odd":["NaN",{"1":"one"}]}}},"all":{"children":["ungrouped"]},"ungrouped":{"hosts":["h","bare"]}}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}
