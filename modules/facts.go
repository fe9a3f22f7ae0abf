package modules

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"
)

// factsCmd prints, with one remote command, what modSetup reads: the host name, the kernel,
// the machine, /etc/os-release, then key=value lines of its own (prefixed with _), then the
// network (netCmd).
const factsCmd = `hostname; uname -r; uname -m; cat /etc/os-release 2>/dev/null; echo
echo "_debian_version=$(cat /etc/debian_version 2>/dev/null)"
echo "_init=$(cat /proc/1/comm 2>/dev/null)"
echo "_system=$(uname -s)"
echo "_meminfo=$(awk '{printf "%s%s ", $1, $2}' /proc/meminfo 2>/dev/null)"
echo "_vcpus=$(grep -c ^processor /proc/cpuinfo 2>/dev/null)"
echo "_python=$(python3 -c 'import sys; v = sys.version_info; print(v[0], v[1], v[2], v[3], v[4], sys.executable)' 2>/dev/null)"
` + netCmd + `
true`

// modSetup gathers the facts roles branch on most, named and typed as Ansible's setup names
// them, with one remote command.
func modSetup(ctx context.Context, m *Task, _ map[string]any) (map[string]any, error) {
	m.Become = false // facts are readable by anyone; no sudo round trip
	out, err := m.runPlain(ctx, factsCmd)
	if err != nil {
		return nil, err
	}
	if out.rc != 0 {
		return out.result(false), nil
	}
	facts := parseFacts(out.stdout)
	all := make(map[string]any, len(facts)+1)
	short := make(map[string]any, len(facts))
	for k, v := range facts {
		all[k] = v
		short[strings.TrimPrefix(k, "ansible_")] = v
	}
	all["ansible_facts"] = short
	return map[string]any{"changed": false, "ansible_facts": all}, nil
}

var debianVersion = regexp.MustCompile(`^\d+(\.\d+)*$`)

func parseFacts(out string) map[string]any {
	out, netOut, hasNet := strings.Cut(out, "\n"+netMark+"\n")
	ls := strings.Split(out, "\n")
	for len(ls) < 3 {
		ls = append(ls, "")
	}
	kv := map[string]string{}
	for _, l := range ls[3:] {
		if k, v, ok := strings.Cut(l, "="); ok {
			kv[k] = strings.TrimSpace(strings.Trim(v, `"'`))
		}
	}
	dist, family := distribution(kv["ID"], kv["ID_LIKE"])
	version := kv["VERSION_ID"]
	if dist == "Debian" && debianVersion.MatchString(kv["_debian_version"]) {
		version = kv["_debian_version"] // Ansible reads the point release there: 12.11, not 12
	}
	major, _, _ := strings.Cut(version, ".")
	host, _, _ := strings.Cut(strings.TrimSpace(ls[0]), ".")
	facts := map[string]any{
		"ansible_hostname":                   host,
		"ansible_kernel":                     strings.TrimSpace(ls[1]),
		"ansible_architecture":               strings.TrimSpace(ls[2]),
		"ansible_os_family":                  family,
		"ansible_distribution":               dist,
		"ansible_distribution_version":       version,
		"ansible_distribution_major_version": major,
		"ansible_distribution_release":       kv["VERSION_CODENAME"],
		"ansible_service_mgr":                serviceMgr(kv["_init"]),
		"ansible_system":                     kv["_system"],
	}
	for k, v := range memoryFacts(kv["_meminfo"]) {
		facts[k] = v
	}
	if n, err := strconv.Atoi(kv["_vcpus"]); err == nil {
		facts["ansible_processor_vcpus"] = n
	}
	if py := pythonFact(kv["_python"]); py != nil {
		facts["ansible_python"] = py
		v := py["version_info"].([]any)
		facts["ansible_python_version"] = fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
	}
	if hasNet {
		maps.Copy(facts, netFacts(netOut))
	}
	return facts
}

// serviceMgr is Ansible's service_mgr for the name of process 1.
func serviceMgr(init string) string {
	switch init {
	case "init":
		return "sysvinit"
	case "":
		return "service"
	}
	return init
}

// pythonFact is Ansible's python fact from "major minor micro releaselevel serial executable".
func pythonFact(line string) map[string]any {
	f := strings.Fields(line)
	if len(f) != 6 {
		return nil
	}
	n := make([]int, 0, 4)
	for _, i := range []int{0, 1, 2, 4} {
		v, err := strconv.Atoi(f[i])
		if err != nil {
			return nil
		}
		n = append(n, v)
	}
	return map[string]any{
		"executable": f[5], "has_sslcontext": true, "type": "cpython",
		"version":      map[string]any{"major": n[0], "minor": n[1], "micro": n[2], "releaselevel": f[3], "serial": n[3]},
		"version_info": []any{n[0], n[1], n[2], f[3], n[3]},
	}
}

// memoryFacts are Ansible's memory facts in MB from /proc/meminfo's "Name:kB" words.
func memoryFacts(words string) map[string]any {
	kb := map[string]int{}
	for w := range strings.FieldsSeq(words) {
		if k, v, ok := strings.Cut(w, ":"); ok {
			if n, err := strconv.Atoi(v); err == nil {
				kb[k] = n / 1024
			}
		}
	}
	total, ok := kb["MemTotal"]
	if !ok {
		return nil
	}
	free, swap, swapFree := kb["MemFree"], kb["SwapTotal"], kb["SwapFree"]
	nocache := free + kb["Buffers"] + kb["Cached"]
	return map[string]any{
		"ansible_memtotal_mb": total, "ansible_memfree_mb": free,
		"ansible_swaptotal_mb": swap, "ansible_swapfree_mb": swapFree,
		"ansible_memory_mb": map[string]any{
			"real":    map[string]any{"total": total, "used": total - free, "free": free},
			"nocache": map[string]any{"free": nocache, "used": total - nocache},
			"swap":    map[string]any{"total": swap, "free": swapFree, "used": swap - swapFree, "cached": kb["SwapCached"]},
		},
	}
}
