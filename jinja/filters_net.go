package jinja

import (
	"fmt"
	"math/big"
	"net/netip"
	"strconv"
	"strings"

	"github.com/jmespath/go-jmespath"
)

// netFilters are the filters of ansible.utils and community.general that public roles call
// most: json_query (JMESPath), ipwrap, ipv4, ipv6 and ipaddr's common queries.
func netFilters() map[string]filter {
	return map[string]filter{"json_query": fJSONQuery, "ipwrap": fIPWrap, "ipaddr": fIPAddr,
		"ipv4": ipVersion("ipv4"), "ipv6": ipVersion("ipv6")}
}

// collectionFilters are the collections whose filters above answer to their full name
// (community.general.json_query, ansible.utils.ipaddr).
var collectionFilters = []string{"community.general.", "ansible.utils.", "ansible.netcommon."}

func fJSONQuery(in any, args []any, kw map[string]any) (any, error) {
	q := str(arg(args, kw, 0, "expr", ""))
	out, err := jmespath.Search(q, jmesIn(in))
	if err != nil {
		return nil, fmt.Errorf("JMESPath %q: %w", q, err)
	}
	return jmesOut(out), nil
}

// jmesIn gives JMESPath numbers as float64, which its comparisons expect; jmesOut turns whole
// ones back into integers.
func jmesIn(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jmesIn(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jmesIn(e)
		}
		CopyOrder(out, x)
		return out
	}
	return v
}

func jmesOut(v any) any {
	switch x := v.(type) {
	case float64:
		if x == float64(int(x)) {
			return int(x)
		}
	case []any:
		for i, e := range x {
			x[i] = jmesOut(e)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = jmesOut(e)
		}
	}
	return v
}

// fIPWrap puts IPv6 addresses in brackets (a network's address: [2001:db8::]/64), in a list or alone; the rest as is.
func fIPWrap(in any, _ []any, _ map[string]any) (any, error) {
	wrap := func(v any) any {
		s := Str(v)
		if p, ok := parseIP(s); ok && !p.Addr().Is4() {
			a, bits, _ := strings.Cut(s, "/")
			if bits != "" {
				bits = "/" + bits
			}
			return "[" + a + "]" + bits
		}
		return v
	}
	if l, ok := in.([]any); ok {
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = wrap(e)
		}
		return out, nil
	}
	return wrap(in), nil
}

// parseIP reads an address or a network (address/prefix); an address alone is a /32 or /128.
func parseIP(s string) (netip.Prefix, bool) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p, true
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Prefix{}, false
	}
	return netip.PrefixFrom(a, a.BitLen()), true
}

func ipVersion(query string) filter {
	return func(in any, args []any, kw map[string]any) (any, error) {
		q := str(arg(args, kw, 0, "query", ""))
		if q == "" {
			q = query
		}
		return fIPAddr(in, []any{q}, nil)
	}
}

// fIPAddr is ipaddr(query): a list keeps the items that answer, a value its answer or False.
func fIPAddr(in any, args []any, kw map[string]any) (any, error) {
	q := str(arg(args, kw, 0, "query", ""))
	if l, ok := in.([]any); ok {
		out := []any{}
		for _, e := range l {
			v, err := ipQuery(Str(e), q)
			if err != nil {
				return nil, err
			}
			if v != false {
				out = append(out, v)
			}
		}
		return out, nil
	}
	return ipQuery(Str(in), q)
}

func ipQuery(s, q string) (any, error) {
	p, ok := parseIP(s)
	if !ok {
		return false, nil
	}
	a, bits := p.Addr(), p.Bits()
	host := bits == a.BitLen()
	switch q {
	case "", "ipv4", "ipv6":
		if q == "ipv4" && !a.Is4() || q == "ipv6" && a.Is4() {
			return false, nil
		}
		if host && !strings.Contains(s, "/") {
			return a.String(), nil
		}
		return p.String(), nil
	case "address":
		return a.String(), nil
	case "network":
		return p.Masked().Addr().String(), nil
	case "prefix":
		return bits, nil
	case "netmask":
		return maskAddr(a, bits).String(), nil
	case "broadcast":
		return lastAddr(p).String(), nil
	case "size":
		return new(big.Int).Lsh(big.NewInt(1), uint(a.BitLen()-bits)).Int64(), nil
	}
	if n, err := strconv.Atoi(q); err == nil {
		return nthAddr(p, n), nil
	}
	return nil, fmt.Errorf("ipaddr: query %q is not supported by kupgrade (it has '', address, network, prefix, netmask, broadcast, size, ipv4, ipv6 and an index)", q)
}

func maskAddr(a netip.Addr, bits int) netip.Addr {
	b := make([]byte, a.BitLen()/8)
	for i := range bits {
		b[i/8] |= 0x80 >> (i % 8)
	}
	m, _ := netip.AddrFromSlice(b)
	return m
}

func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// nthAddr is the n-th address of the network (from its end when negative), as address/prefix.
func nthAddr(p netip.Prefix, n int) any {
	base := p.Masked().Addr()
	if n < 0 {
		base = lastAddr(p)
		n++
	}
	v := new(big.Int).SetBytes(base.AsSlice())
	v.Add(v, big.NewInt(int64(n)))
	b := v.FillBytes(make([]byte, base.BitLen()/8))
	a, _ := netip.AddrFromSlice(b)
	if !p.Contains(a) {
		return false
	}
	return netip.PrefixFrom(a, p.Bits()).String()
}
