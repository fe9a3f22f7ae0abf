package jinja

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"gopkg.in/yaml.v3"
)

func TestKeysAfterChanges(t *testing.T) {
	m := map[string]any{"z": 1, "a": 2, "m": 3}
	if got := Keys(m); !slices.Equal(got, []string{"a", "m", "z"}) {
		t.Errorf("unrecorded map: keys %v, want them sorted", got)
	}
	SetOrder(m, []string{"z", "a", "m"})
	delete(m, "a")
	m["c"], m["b"] = 4, 5
	if got, want := Keys(m), []string{"z", "m", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("after a delete and two adds: keys %v, want %v", got, want)
	}
	c := cloneMap(m)
	c["a"] = 6
	if got, want := Keys(c), []string{"z", "m", "b", "c", "a"}; !slices.Equal(got, want) {
		t.Errorf("clone: keys %v, want %v", got, want)
	}
}

func TestDeadMapForgotten(t *testing.T) {
	addr := func() uintptr {
		m := map[string]any{"b": 1, "a": 2}
		SetOrder(m, []string{"b", "a"})
		return uintptr(unsafe.Pointer(mapHead(m)))
	}()
	for range 3 {
		runtime.GC()
	}
	orderTable.Lock()
	sweepOrders()
	_, kept := orderTable.byAddr[addr]
	orderTable.Unlock()
	if kept {
		t.Errorf("the order of a map nobody holds is still in the orderTable after a sweep")
	}
}

func TestConcurrentSet(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				m := map[string]any{"y": i, "x": g}
				SetOrder(m, []string{"y", "x"})
				if got := Keys(m); !slices.Equal(got, []string{"y", "x"}) {
					t.Errorf("keys %v, want [y x]", got)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestYAMLAndJSONOrder(t *testing.T) {
	src := "base: &b {zeta: 1, alpha: 2}\nvals:\n  <<: *b\n  mid: 3\n  list:\n    - {d: 1, c: 2}\n"
	var n yaml.Node
	var v any
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	if err := n.Decode(&v); err != nil {
		t.Fatal(err)
	}
	OrderYAML(&n, v)
	vals := v.(map[string]any)["vals"].(map[string]any)
	item := vals["list"].([]any)[0].(map[string]any)
	for _, c := range []struct{ got, want []string }{
		{Keys(v.(map[string]any)), []string{"base", "vals"}},
		{Keys(vals), []string{"zeta", "alpha", "mid", "list"}},
		{Keys(item), []string{"d", "c"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("YAML keys %v, want %v", c.got, c.want)
		}
	}
	js := []byte(`{"k9": {"b": 1, "a": [ {"y": 1, "x": 2} ]}, "k1": 2}`)
	var j any
	if err := yaml.Unmarshal(js, &j); err != nil {
		t.Fatal(err)
	}
	if err := OrderJSON(js, j); err != nil {
		t.Fatal(err)
	}
	inner := j.(map[string]any)["k9"].(map[string]any)
	got := fmt.Sprint(Keys(j.(map[string]any)), Keys(inner), Keys(inner["a"].([]any)[0].(map[string]any)))
	if want := "[k9 k1] [b a] [y x]"; got != want {
		t.Errorf("JSON keys %s, want %s", got, want)
	}
}
