package jinja

import (
	"fmt"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// hostVars is Ansible's hostvars: a host's variable holding a template is rendered when read,
// with that host's own variables (not all of every host's at once).
type (
	hostVars map[string]any
	hostMap  map[string]any
)

func (h hostVars) GetAttribute(name string) (*exec.Value, bool) { return h.GetItem(name) }

func (h hostVars) GetItem(key any) (*exec.Value, bool) {
	k := fmt.Sprint(key)
	switch v := h[k].(type) {
	case map[string]any:
		return exec.AsValue(hostMap(v)), true
	case nil:
		return exec.AsValue(&Undefined{Name: k, Attr: true}), false
	default:
		return exec.ToValue(wrap(v)), true
	}
}

func (h hostMap) GetAttribute(name string) (*exec.Value, bool) { return h.GetItem(name) }

func (h hostMap) GetItem(key any) (*exec.Value, bool) {
	k := fmt.Sprint(key)
	v, ok := h[k]
	if !ok {
		return exec.AsValue(&Undefined{Name: k, Attr: true}), false
	}
	// Only text is rendered: the host's registered results (maps) stay data.
	if s, isStr := v.(string); isStr && isTemplate(s) {
		return exec.ToValue(newScope(h).resolve(k)), true
	}
	return exec.ToValue(wrap(v)), true
}
