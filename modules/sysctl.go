package modules

import (
	"regexp"
	"strings"
)

// sysctl is ansible.posix.sysctl on Linux: the key's line in sysctl_file is set (or removed), the
// file rewritten as Ansible rewrites it (every line stripped, a key's later duplicates dropped),
// the running value set with sysctl -w when sysctl_set asks, and the file reloaded with
// sysctl -p when something changed and reload is on. The running value and the file are read
// in one command.

// sysctlArgs are the module's arguments, parsed as Ansible parses them.
type sysctlArgs struct {
	name, value         string
	present             bool
	reload, set, ignore bool
	file                string
}

// sysctlPlan is what the module decided: changed, whether to set the running value and to
// write the file, and the file's new lines.
type sysctlPlan struct {
	changed, setProc, writeFile bool
	lines                       []string
}

// sysctlValue is Ansible's _parse_value: a boolean word is 1 or 0, any other text is stripped.
func sysctlValue(args map[string]any) string {
	if args["value"] == nil {
		return ""
	}
	v := ArgStr(args, "value")
	switch strings.ToLower(v) {
	case "y", "yes", "on", "1", "true", "t":
		return "1"
	case "n", "no", "off", "0", "false", "f":
		return "0"
	}
	return strings.TrimSpace(v)
}

// sysctlLines reads a sysctl file as Python's readlines in text mode, each line stripped.
func sysctlLines(data []byte) []string {
	s := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	var out []string
	for l := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		out = append(out, strings.TrimSpace(l))
	}
	if s == "" {
		return nil
	}
	return out
}

// sysctlEntry splits a setting line; ok is false for a blank line, a comment or a line without =.
func sysctlEntry(line string) (k, v string, ok bool) {
	if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") || !strings.Contains(line, "=") {
		return "", "", false
	}
	k, v, _ = strings.Cut(line, "=")
	return strings.TrimSpace(k), strings.TrimSpace(v), true
}

// planSysctl is Ansible's process() without its side effects; proc is the running value, nil
// when sysctl could not read it.
func planSysctl(a sysctlArgs, proc *string, data []byte) sysctlPlan {
	var p sysctlPlan
	values := map[string]string{}
	seen := map[string]bool{}
	for _, l := range sysctlLines(data) {
		k, v, ok := sysctlEntry(l)
		switch {
		case !ok:
			p.lines = append(p.lines, l)
		case seen[k]:
		case k == a.name && a.present:
			p.lines = append(p.lines, k+"="+a.value)
		case k != a.name:
			p.lines = append(p.lines, k+"="+v)
		}
		if ok {
			values[k], seen[k] = v, true
		}
	}
	if !seen[a.name] && a.present {
		p.lines = append(p.lines, a.name+"="+a.value)
	}
	fv, has := values[a.name]
	switch {
	case !has && !a.present:
	case !has, fv != "" && !a.present, fv != a.value:
		p.changed, p.writeFile = true, true
	case a.reload:
		p.changed = proc == nil || !sameWords(*proc, a.value)
	}
	if a.set && a.present && (proc == nil || !sameWords(*proc, a.value)) {
		p.changed, p.setProc = true, proc != nil
	}
	return p
}

// sameWords is Ansible's _values_is_equal: the same whitespace-separated words in order.
func sameWords(a, b string) bool {
	x, y := strings.Fields(a), strings.Fields(b)
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// sysctlFailed is Ansible's _stderr_failed: sysctl exits 0 yet could not set a key.
var sysctlFailed = regexp.MustCompile(`(?m)^sysctl: setting key "[^"]+": (Invalid argument|Read-only file system)$`)
