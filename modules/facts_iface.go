package modules

import (
	"encoding/binary"
	"net"
	"strconv"
	"strings"
)

// netFacts builds Ansible's network facts from netCmd's output: interfaces, one
// ansible_<device> each (a colon of an alias is an underscore, as Ansible writes it),
// default_ipv4, default_ipv6, all_ipv4_addresses and all_ipv6_addresses.
func netFacts(out string) map[string]any {
	o := splitNet(out)
	n := &netState{
		ifaces:   map[string]map[string]any{},
		default4: defaultRoute(o.route4, "8.8.8.8"),
		default6: defaultRoute(o.route6, "2404:6800:400a:800::1012"),
		ips4:     []any{}, ips6: []any{},
	}
	for _, dev := range o.devices {
		n.device(dev, o.files[dev])
		n.addresses(dev, o.primary[dev], false)
		n.addresses(dev, o.secondary[dev], true)
	}
	facts := map[string]any{
		"ansible_default_ipv4": n.default4, "ansible_default_ipv6": n.default6,
		"ansible_all_ipv4_addresses": n.ips4, "ansible_all_ipv6_addresses": n.ips6,
	}
	names := make([]any, 0, len(n.order))
	for _, dev := range n.order {
		name := strings.ReplaceAll(dev, ":", "_")
		names = append(names, name)
		facts["ansible_"+strings.ReplaceAll(name, "-", "_")] = n.ifaces[dev]
	}
	facts["ansible_interfaces"] = names
	return facts
}

type netState struct {
	ifaces             map[string]map[string]any
	order              []string
	default4, default6 map[string]any
	ips4, ips6         []any
}

func (n *netState) iface(name string) map[string]any {
	if _, ok := n.ifaces[name]; !ok {
		n.order = append(n.order, name)
	}
	n.ifaces[name] = map[string]any{}
	return n.ifaces[name]
}

// device reads a device's /sys/class/net files as Ansible's get_interfaces_info does.
func (n *netState) device(dev string, f map[string]string) {
	i := n.iface(dev)
	i["device"] = dev
	if mac := f["address"]; mac != "" && mac != "00:00:00:00:00:00" {
		i["macaddress"] = mac
	}
	setInt(i, "mtu", f["mtu"])
	if s, ok := f["operstate"]; ok {
		i["active"] = s != "down"
	}
	setStr(i, "module", f["module"])
	if t, ok := f["type"]; ok {
		i["type"] = orDefault(interfaceTypes[t], "unknown")
	}
	if id, ok := f["bridge/bridge_id"]; ok {
		i["type"], i["interfaces"], i["id"] = "bridge", words(f["brif"]), id
		if stp, ok := f["bridge/stp_state"]; ok {
			i["stp"] = stp == "1"
		}
	}
	if _, ok := f["bonding/mode"]; ok {
		i["type"], i["slaves"] = "bonding", words(f["bonding/slaves"])
		for _, k := range []string{"mode", "miimon", "lacp_rate"} {
			if w := strings.Fields(f["bonding/"+k]); len(w) > 0 {
				i[k] = w[0]
			}
		}
	}
	setStr(i, "pciid", f["pciid"])
	setInt(i, "speed", f["speed"])
	if flags, err := strconv.ParseInt(strings.TrimPrefix(f["flags"], "0x"), 16, 64); err == nil {
		i["promisc"] = flags&0x100 > 0
	}
	i["_mac"] = f["address"] // what default_ipv4 copies, even a loopback's zeros
}

// addresses reads a device's `ip addr show` lines as Ansible's parse_ip_output does.
func (n *netState) addresses(dev string, lines []string, secondary bool) {
	d := n.ifaces[dev]
	for _, l := range lines {
		w := strings.Fields(l)
		switch {
		case len(w) > 1 && w[0] == "inet":
			n.inet(dev, w, secondary)
		case len(w) > 3 && w[0] == "inet6":
			addr, prefix, scope := w[1], "", w[3]
			if w[2] == "peer" && len(w) > 5 {
				_, prefix, _ = strings.Cut(w[3], "/")
				scope = w[5]
			} else {
				addr, prefix, _ = strings.Cut(w[1], "/")
			}
			list, _ := d["ipv6"].([]any)
			d["ipv6"] = append(list, map[string]any{"address": addr, "prefix": prefix, "scope": scope})
			if n.default6["address"] == addr {
				n.default6["prefix"], n.default6["scope"] = prefix, scope
				n.fromDevice(n.default6, d)
			}
			if addr != "::1" {
				n.ips6 = append(n.ips6, addr)
			}
		}
	}
	if secondary {
		delete(d, "_mac")
	}
}

// fromDevice copies a device's mac address, mtu and type into a default_ipv4 or _ipv6.
func (n *netState) fromDevice(def, d map[string]any) {
	def["macaddress"], def["mtu"] = d["_mac"], d["mtu"]
	t, _ := d["type"].(string)
	def["type"] = orDefault(t, "unknown")
}

// inet reads one inet line: the label's ipv4 (or its secondaries), the default's details.
func (n *netState) inet(dev string, w []string, secondary bool) {
	addr, plen, bcast := w[1], "32", ""
	if a, p, ok := strings.Cut(w[1], "/"); ok {
		addr, plen = a, p
		if len(w) > 3 && w[2] == "brd" {
			bcast = w[3]
		}
	}
	ip4 := net.ParseIP(addr).To4()
	bits, err := strconv.Atoi(plen)
	if ip4 == nil || err != nil || bits < 0 || bits > 32 {
		return
	}
	mask := ^uint32(0) << (32 - bits)
	if bits == 0 {
		mask = 0
	}
	entry := map[string]any{"address": addr, "broadcast": bcast, "netmask": ip4str(mask),
		"network": ip4str(binary.BigEndian.Uint32(ip4) & mask), "prefix": plen}
	label := w[len(w)-1]
	li := n.ifaces[dev]
	if label != dev {
		li = n.iface(label)
	}
	if _, has := li["ipv4"]; !secondary && !has {
		li["ipv4"] = entry
	} else {
		li["ipv4_secondaries"] = append(anyList(li["ipv4_secondaries"]), entry)
	}
	if secondary && label != dev {
		d := n.ifaces[dev]
		d["ipv4_secondaries"] = append(anyList(d["ipv4_secondaries"]), entry)
	}
	if n.default4["address"] == addr {
		for _, k := range []string{"broadcast", "netmask", "network", "prefix"} {
			n.default4[k] = entry[k]
		}
		n.fromDevice(n.default4, n.ifaces[dev])
		n.default4["alias"] = label
	}
	if !strings.HasPrefix(addr, "127.") {
		n.ips4 = append(n.ips4, addr)
	}
}

func ip4str(v uint32) string {
	b := make(net.IP, 4)
	binary.BigEndian.PutUint32(b, v)
	return b.String()
}

func setInt(m map[string]any, k, v string) {
	if i, err := strconv.Atoi(v); err == nil {
		m[k] = i
	}
}

func setStr(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

func words(s string) []any {
	out := []any{}
	for _, w := range strings.Fields(s) {
		out = append(out, w)
	}
	return out
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
