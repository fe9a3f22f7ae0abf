package jinja

// Python 3.7+ dicts keep the order their keys were inserted in, and Ansible shows it: the order a
// YAML or JSON document wrote them in, or a filter built them in (combine, dict2items, to_json,
// `for k in d`, d.items()). kupgrade's variables are plain map[string]any, which the runner, the
// modules and the templates all read, and a Go map has no order of its own: this file keeps the
// order beside the map, in a table keyed by the map's address that holds it weakly.

import (
	"maps"
	"reflect"
	"slices"
	"sync"
	"unsafe"
	"weak"
)

type orderEntry struct {
	self weak.Pointer[byte]
	keys []string
}

// sweepOrdersEvery is how many SetOrder calls pass between two sweeps of the entries of dead maps.
const sweepOrdersEvery = 4096

var orderTable struct {
	sync.Mutex
	byAddr map[uintptr]orderEntry
	sets   int
}

// head is the map's runtime header, the heap object a weak pointer can follow.
func mapHead(m map[string]any) *byte {
	return (*byte)(reflect.ValueOf(m).UnsafePointer())
}

// SetOrder records keys as m's order. Keys not in m are ignored when read; a nil or empty map is
// not recorded.
func SetOrder(m map[string]any, keys []string) {
	if len(m) == 0 {
		return
	}
	p := mapHead(m)
	orderTable.Lock()
	defer orderTable.Unlock()
	if orderTable.byAddr == nil {
		orderTable.byAddr = map[uintptr]orderEntry{}
	}
	orderTable.byAddr[uintptr(unsafe.Pointer(p))] = orderEntry{weak.Make(p), slices.Clone(keys)}
	if orderTable.sets++; orderTable.sets%sweepOrdersEvery == 0 {
		sweepOrders()
	}
}

func sweepOrders() {
	for a, e := range orderTable.byAddr {
		if e.self.Value() == nil {
			delete(orderTable.byAddr, a)
		}
	}
}

// recorded is m's recorded order, or nil.
func recordedKeys(m map[string]any) []string {
	if len(m) == 0 {
		return nil
	}
	orderTable.Lock()
	defer orderTable.Unlock()
	p := mapHead(m)
	e, ok := orderTable.byAddr[uintptr(unsafe.Pointer(p))]
	if !ok || e.self.Value() != p {
		return nil
	}
	return e.keys
}

// Keys returns m's keys: the recorded ones still present in their order, then the others
// sorted.
func Keys(m map[string]any) []string {
	rec := recordedKeys(m)
	out := make([]string, 0, len(m))
	seen := make(map[string]bool, len(rec))
	for _, k := range rec {
		if _, ok := m[k]; ok && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	if len(out) == len(m) {
		return out
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// cloneMap is maps.Clone keeping m's order.
func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := maps.Clone(m)
	SetOrder(out, Keys(m))
	return out
}

// CopyOrder records src's order on dst, a map built from src's keys (a copy with some values
// converted, say).
func CopyOrder(dst, src map[string]any) {
	if rec := recordedKeys(src); rec != nil {
		SetOrder(dst, rec)
	}
}
