package modules

import (
	"strings"
)

// netMark opens the network part of factsCmd's output.
const netMark = "@@net"

// netCmd prints what Ansible's LinuxNetwork reads, with a fixed number of processes however
// many devices the host has: the routes to its two probe addresses, the devices of
// /sys/class/net in directory order (as Python's glob lists them), their files as grep prints
// them (path:content), the links of physical devices and bridge ports, then every device's
// primary and secondary addresses. Nothing when the host has no ip command, as Ansible gathers
// no network facts then.
const netCmd = `if command -v ip >/dev/null 2>&1; then echo ` + netMark + `
echo @route4; ip -4 route get 8.8.8.8 2>/dev/null | head -n 1
echo @route6; ip -6 route get 2404:6800:400a:800::1012 2>/dev/null | head -n 1
echo @devs; ls -U /sys/class/net 2>/dev/null
echo @files; cd /sys/class/net 2>/dev/null && grep -s . */address */mtu */operstate */type */flags */speed */bridge/bridge_id */bridge/stp_state */bonding/slaves */bonding/mode */bonding/miimon */bonding/lacp_rate
for l in */device */brif/*; do [ -e "$l" ] || continue; case $l in
*/device) echo "${l%%/*}:pciid:$(basename "$(readlink "$l")")"; [ -e "$l/driver/module" ] && echo "${l%%/*}:module:$(basename "$(readlink -f "$l/driver/module")")";;
*) echo "${l%%/*}:brif:${l##*/}";; esac; done; cd /
echo @primary; ip addr show primary 2>/dev/null || ip addr show
echo @secondary; ip addr show secondary 2>/dev/null
fi`

// interfaceTypes are Ansible's names for /sys/class/net/*/type.
var interfaceTypes = map[string]string{"1": "ether", "32": "infiniband", "512": "ppp", "772": "loopback", "65534": "tunnel"}

// netOutput is netCmd's output cut into its sections.
type netOutput struct {
	route4, route6     string
	devices            []string
	files              map[string]map[string]string // device -> file -> content
	primary, secondary map[string][]string          // device -> its address lines
}

func splitNet(out string) netOutput {
	o := netOutput{files: map[string]map[string]string{}, primary: map[string][]string{}, secondary: map[string][]string{}}
	section, dev := "", ""
	for l := range strings.SplitSeq(out, "\n") {
		switch {
		case strings.HasPrefix(l, "@") && !strings.Contains(l, " "):
			section, dev = l, ""
		case section == "@route4" && o.route4 == "":
			o.route4 = l
		case section == "@route6" && o.route6 == "":
			o.route6 = l
		case section == "@devs" && l != "":
			o.devices = append(o.devices, l)
			o.files[l] = map[string]string{}
		case section == "@files":
			o.file(l)
		case section == "@primary" || section == "@secondary":
			dev = o.addrLine(section, dev, l)
		}
	}
	return o
}

// file reads grep's "eth0/mtu:1500", or the loop's "eth0:pciid:virtio0" and "br0:brif:veth1"
// (ports are gathered space-separated, in the order the folder lists them).
func (o *netOutput) file(l string) {
	dev, rest, ok := strings.Cut(l, "/")
	sep := ":"
	if !ok || strings.Contains(dev, ":") {
		dev, rest, ok = strings.Cut(l, ":")
	}
	name, content, ok2 := strings.Cut(rest, sep)
	if !ok || !ok2 || o.files[dev] == nil {
		return
	}
	if name == "brif" {
		content = strings.TrimSpace(o.files[dev][name] + " " + content)
	}
	o.files[dev][name] = strings.TrimSpace(content)
}

// addrLine files one line of `ip addr show` under the device its header named.
func (o *netOutput) addrLine(section, dev, l string) string {
	if l != "" && l[0] != ' ' { // "2: eth0@if5: <...>"
		f := strings.Fields(l)
		if len(f) > 1 {
			name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
			return name
		}
		return dev
	}
	if section == "@primary" {
		o.primary[dev] = append(o.primary[dev], l)
	} else {
		o.secondary[dev] = append(o.secondary[dev], l)
	}
	return dev
}

// defaultRoute reads `ip route get` as Ansible does: interface after dev, address after src,
// gateway after via, when the line starts with the probe address.
func defaultRoute(line, probe string) map[string]any {
	out := map[string]any{}
	w := strings.Fields(line)
	if len(w) == 0 || w[0] != probe {
		return out
	}
	for i := 0; i < len(w)-1; i++ {
		switch {
		case w[i] == "dev":
			out["interface"] = w[i+1]
		case w[i] == "src":
			out["address"] = w[i+1]
		case w[i] == "via" && w[i+1] != probe:
			out["gateway"] = w[i+1]
		}
	}
	return out
}
