package playbooks

import (
	"strconv"
	"strings"
)

// controllerActions are Ansible actions its controller runs itself, that kupgrade does not
// have, each with the reason; refused by name when a playbook loads.
var controllerActions = map[string]string{
	"async_status": "it collects tasks started with poll: 0, which kupgrade refuses (it runs each task to its end)",
}

// refusedAction is the error for a task whose module is a controller action kupgrade lacks.
func (d *decoder) refusedAction(p *pair, label string) error {
	name := strings.TrimPrefix(strings.TrimPrefix(p.key, "ansible.builtin."), "ansible.legacy.")
	why, ok := controllerActions[name]
	if !ok {
		return nil
	}
	return d.errAt(p.k, "module %q is not supported by kupgrade (%s): %s", p.key, label, why)
}

func isZero(s string) bool {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil && f == 0
}
