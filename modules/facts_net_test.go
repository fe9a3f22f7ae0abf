package modules

import (
	"reflect"
	"testing"
)

// netSample is netCmd's output on a host with a bridge, an alias with a secondary address and
// a loopback, as `ip` prints them.
const netSample = "@route4\n8.8.8.8 via 10.0.0.1 dev eth0 src 10.0.0.5 uid 0 \n    cache \n" +
	"@route6\n" +
	"@devs\nlo\neth0\nbr-x\n" +
	"@files\nlo/address:00:00:00:00:00:00\neth0/address:52:54:00:12:34:56\nbr-x/address:02:42:aa:bb:cc:dd\n" +
	"lo/mtu:65536\neth0/mtu:1500\nbr-x/mtu:1500\nlo/operstate:unknown\neth0/operstate:up\nbr-x/operstate:down\n" +
	"lo/type:772\neth0/type:1\nbr-x/type:1\nlo/flags:0x9\neth0/flags:0x1103\neth0/speed:1000\n" +
	"br-x/bridge/bridge_id:8000.0242aabbccdd\nbr-x/bridge/stp_state:0\n" +
	"eth0:pciid:virtio0\neth0:module:virtio_net\nbr-x:brif:veth1\nbr-x:brif:veth2\n" +
	"@primary\n1: lo: <LOOPBACK,UP> mtu 65536\n    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n" +
	"    inet 127.0.0.1/8 scope host lo\n    inet6 ::1/128 scope host noprefixroute \n" +
	"2: eth0: <BROADCAST,UP> mtu 1500\n    inet 10.0.0.5/24 brd 10.0.0.255 scope global eth0\n" +
	"    inet6 fe80::5054:ff:fe12:3456/64 scope link \n" +
	"3: br-x: <NO-CARRIER> mtu 1500\n    inet 172.18.0.1/16 brd 172.18.255.255 scope global br-x\n" +
	"@secondary\n2: eth0: <BROADCAST,UP> mtu 1500\n    inet 10.0.0.6/24 brd 10.0.0.255 scope global secondary eth0:1\n"

// TestNetworkFactsAsAnsibleNamesThem: default_ipv4 is the route's interface with its address's
// network, the device's mac, mtu and type; each device is ansible_<name> with Ansible's type
// names (a bridge lists its ports); an alias's colon becomes an underscore; each device's primary
// then secondary addresses come before the next device's; loopback addresses
// are not among all_ipv4_addresses.
func TestNetworkFactsAsAnsibleNamesThem(t *testing.T) {
	f := netFacts(netSample)
	want4 := map[string]any{"interface": "eth0", "address": "10.0.0.5", "gateway": "10.0.0.1",
		"broadcast": "10.0.0.255", "netmask": "255.255.255.0", "network": "10.0.0.0", "prefix": "24",
		"macaddress": "52:54:00:12:34:56", "mtu": 1500, "type": "ether", "alias": "eth0"}
	check := func(k string, want any) {
		t.Helper()
		if !reflect.DeepEqual(f[k], want) {
			t.Errorf("%s = %#v\n want %#v", k, f[k], want)
		}
	}
	check("ansible_default_ipv4", want4)
	check("ansible_default_ipv6", map[string]any{})
	check("ansible_interfaces", []any{"lo", "eth0", "eth0_1", "br-x"})
	check("ansible_all_ipv4_addresses", []any{"10.0.0.5", "10.0.0.6", "172.18.0.1"})
	check("ansible_all_ipv6_addresses", []any{"fe80::5054:ff:fe12:3456"})
	check("ansible_lo", map[string]any{"device": "lo", "mtu": 65536, "active": true, "type": "loopback", "promisc": false,
		"ipv4": map[string]any{"address": "127.0.0.1", "broadcast": "", "netmask": "255.0.0.0", "network": "127.0.0.0", "prefix": "8"},
		"ipv6": []any{map[string]any{"address": "::1", "prefix": "128", "scope": "host"}}})
	eth0 := f["ansible_eth0"].(map[string]any)
	if eth0["speed"] != 1000 || eth0["module"] != "virtio_net" || eth0["pciid"] != "virtio0" || eth0["promisc"] != true {
		t.Errorf("ansible_eth0 = %#v", eth0)
	}
	sec := map[string]any{"address": "10.0.0.6", "broadcast": "10.0.0.255", "netmask": "255.255.255.0", "network": "10.0.0.0", "prefix": "24"}
	if !reflect.DeepEqual(eth0["ipv4_secondaries"], []any{sec}) {
		t.Errorf("eth0's secondaries = %#v", eth0["ipv4_secondaries"])
	}
	check("ansible_eth0_1", map[string]any{"ipv4_secondaries": []any{sec}})
	br := f["ansible_br_x"].(map[string]any)
	if br["type"] != "bridge" || !reflect.DeepEqual(br["interfaces"], []any{"veth1", "veth2"}) || br["stp"] != false || br["active"] != false {
		t.Errorf("ansible_br_x = %#v", br)
	}
}

// TestNoNetworkFactsWithoutIP: a host without the ip command gets no network facts (netCmd
// prints nothing), as Ansible gathers none there.
func TestNoNetworkFactsWithoutIP(t *testing.T) {
	f := parseFacts("h\nk\nm\nID=debian\n")
	if _, ok := f["ansible_default_ipv4"]; ok {
		t.Errorf("network facts without ip: %v", f["ansible_default_ipv4"])
	}
	f = parseFacts("h\nk\nm\nID=debian\n" + netMark + "\n" + netSample)
	if f["ansible_default_ipv4"].(map[string]any)["address"] != "10.0.0.5" || f["ansible_distribution"] != "Debian" {
		t.Errorf("facts with the network: %v", f)
	}
}
