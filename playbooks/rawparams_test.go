package playbooks

import (
	"reflect"
	"testing"
)

// TestRawParamsOptions: a free-form command's creates=, chdir= and the like are options, as
// Ansible reads them; quotes and templates keep their blanks, other words stay in the command.
func TestRawParamsOptions(t *testing.T) {
	for _, c := range []struct {
		in, raw string
		opts    map[string]string
	}{
		{"iptables -F creates=/etc/firewall.bash\n", "iptables -F", map[string]string{"creates": "/etc/firewall.bash"}},
		{"make install chdir='/opt/my src' removes=/tmp/x", "make install", map[string]string{"chdir": "/opt/my src", "removes": "/tmp/x"}},
		{"echo {{ a | default('x y') }} foo=bar 'creates=q'", "echo {{ a | default('x y') }} foo=bar 'creates=q'", nil},
		{"echo   two  spaces", "echo   two  spaces", nil},
	} {
		raw, opts := splitRawParams(c.in)
		if raw != c.raw || !reflect.DeepEqual(opts, c.opts) && len(opts)+len(c.opts) > 0 {
			t.Errorf("splitRawParams(%q) = %q, %v; want %q, %v", c.in, raw, opts, c.raw, c.opts)
		}
	}
}
