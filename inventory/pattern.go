package inventory

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/internal/typo"
)

// Select returns the hosts matched by an Ansible --limit pattern, in inventory order.
//
// Terms are separated by ':' or ','. A term is a group or host name, a glob (controller-*,
// node?, rack[ab]-*), a regular expression after '~', 'all' or '*'. Plain terms are united, then
// '&term' intersects and '!term' removes, whatever their order, as in Ansible; a pattern of only
// '&' and '!' terms starts from all. "" means all. A term that matches nothing, or a pattern that
// leaves no host, is an error: a typo in --limit must not silently run on nothing.
func (inv *Inventory) Select(pattern string) ([]*Host, error) {
	// A pattern that is exactly a host's or a group's name means that one, even when the name
	// holds a ':' (an IPv6 address) or a glob character.
	if h, ok := inv.byName[pattern]; ok {
		return []*Host{h}, nil
	}
	if members, ok := inv.Groups[pattern]; ok && len(members) > 0 {
		return inv.pick(members), nil
	}
	terms := splitPattern(pattern)
	if len(terms) == 0 {
		return slices.Clone(inv.Hosts), nil
	}
	var plain, and, not []string
	for _, t := range terms {
		switch t[0] {
		case '&':
			and = append(and, t[1:])
		case '!':
			not = append(not, t[1:])
		default:
			plain = append(plain, t)
		}
	}
	if len(plain) == 0 {
		plain = []string{"all"}
	}
	chosen := map[string]bool{}
	for _, t := range plain {
		m, err := inv.matchTerm(pattern, t)
		if err != nil {
			return nil, err
		}
		for h := range m {
			chosen[h] = true
		}
	}
	for _, t := range and {
		m, err := inv.matchTerm(pattern, t)
		if err != nil {
			return nil, err
		}
		for h := range chosen {
			if !m[h] {
				delete(chosen, h)
			}
		}
	}
	for _, t := range not {
		m, err := inv.matchTerm(pattern, t)
		if err != nil {
			return nil, err
		}
		for h := range m {
			delete(chosen, h)
		}
	}
	out := inv.pickSet(chosen)
	if len(out) == 0 {
		return nil, &Error{Msg: fmt.Sprintf("--limit %q leaves no host", pattern),
			Fix: "check the & and ! terms; kupgrade inventory list shows the groups of each host"}
	}
	return out, nil
}

func (inv *Inventory) pick(names []string) []*Host {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return inv.pickSet(set)
}

// pickSet returns the hosts in set, in inventory order.
func (inv *Inventory) pickSet(set map[string]bool) []*Host {
	var out []*Host
	for _, h := range inv.Hosts {
		if set[h.Name] {
			out = append(out, h)
		}
	}
	return out
}

// splitPattern splits on ':' and ',' outside brackets (so rack[a:c] stays whole) and drops empty
// terms.
func splitPattern(pattern string) []string {
	var terms []string
	depth, start := 0, 0
	flush := func(end int) {
		if t := strings.TrimSpace(pattern[start:end]); t != "" {
			terms = append(terms, t)
		}
		start = end + 1
	}
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '[':
			depth++
		case ']':
			depth = max(0, depth-1)
		case ',':
			if depth == 0 {
				flush(i)
			}
		case ':':
			// a ':' inside a regexp term belongs to it; ',' still separates
			if depth == 0 && !strings.HasPrefix(strings.TrimSpace(pattern[start:i]), "~") {
				flush(i)
			}
		}
	}
	flush(len(pattern))
	return terms
}

// matchTerm returns the names of the hosts one term matches, in Ansible's order: the hosts of
// every group it names, then the hosts it names (for a glob or a regexp, or when no group
// matched), with an optional [subscript] applied to that list.
func (inv *Inventory) matchTerm(pattern, term string) (map[string]bool, error) {
	if term == "" {
		return nil, &Error{Msg: fmt.Sprintf("--limit %q has an empty & or ! term", pattern),
			Fix: "write a group or host name after & and !"}
	}
	expr, sub := splitSubscript(term)
	if sub != nil {
		if _, ok := inv.byName[term]; ok { // a host really named web[1]
			expr, sub = term, nil
		}
	}
	hosts, named, err := inv.termHosts(expr)
	if err == nil && sub != nil && len(hosts) == 0 && !named {
		// web-[1] that names nothing as web- with a subscript may still be a glob's [1]
		if h2, n2, err2 := inv.termHosts(term); err2 == nil && len(h2) > 0 {
			hosts, named, expr, sub = h2, n2, term, nil
		}
	}
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("--limit %q: bad term %q: %v", pattern, term, err),
			Fix: "globs use * ? [abc]; a regular expression starts with ~"}
	}
	if len(hosts) == 0 && named {
		return nil, &Error{Msg: fmt.Sprintf("--limit %q: group %q has no hosts", pattern, expr),
			Fix: "add hosts to it or leave it out of --limit"}
	}
	if len(hosts) == 0 {
		return nil, inv.noMatch(pattern, expr)
	}
	if sub != nil {
		if hosts, err = sub.apply(pattern, expr, hosts); err != nil {
			return nil, err
		}
	}
	out := make(map[string]bool, len(hosts))
	for _, h := range hosts {
		out[h] = true
	}
	return out, nil
}

// termHosts lists the hosts a term without subscript matches, in Ansible's order, and says
// whether it named a group.
func (inv *Inventory) termHosts(expr string) ([]string, bool, error) {
	match, err := termMatcher(expr)
	if err != nil {
		return nil, false, err
	}
	var hosts []string
	seen := map[string]bool{}
	add := func(names []string) {
		for _, h := range names {
			if !seen[h] {
				seen[h] = true
				hosts = append(hosts, h)
			}
		}
	}
	named := false
	for _, g := range inv.groupOrder {
		if match(g) {
			named = true
			add(inv.groupHosts(g))
		}
	}
	if !named || strings.ContainsAny(expr, ".?*[~") {
		for _, h := range inv.Hosts {
			if match(h.Name) {
				add([]string{h.Name})
			}
		}
	}
	return hosts, named, nil
}

// groupHosts lists a group's hosts in the order Ansible's Group.get_hosts gives them: the
// group's own hosts, then those of its children, grandchildren and so on, level by level, each
// host once.
func (inv *Inventory) groupHosts(name string) []string {
	if name == "all" {
		return slices.Clone(inv.Groups["all"])
	}
	return membersInOrder(inv.groups, name, func(string) bool { return true })
}

func termMatcher(term string) (func(string) bool, error) {
	if term == "*" {
		return func(string) bool { return true }, nil
	}
	if re, ok := strings.CutPrefix(term, "~"); ok {
		rx, err := regexp.Compile(re)
		if err != nil {
			return nil, err
		}
		// Ansible uses re.match: anchored at the start, not at the end.
		return func(s string) bool {
			loc := rx.FindStringIndex(s)
			return loc != nil && loc[0] == 0
		}, nil
	}
	if !strings.ContainsAny(term, "*?[") {
		return func(s string) bool { return s == term }, nil
	}
	if _, err := path.Match(term, ""); err != nil {
		return nil, err
	}
	return func(s string) bool {
		ok, _ := path.Match(term, s)
		return ok
	}, nil
}

func (inv *Inventory) noMatch(pattern, term string) error {
	names := slices.Clone(inv.groupOrder)
	for _, h := range inv.Hosts {
		names = append(names, h.Name)
	}
	fix := "kupgrade inventory list shows the hosts and groups"
	if c := typo.Closest(term, names); c != "" {
		fix = fmt.Sprintf("did you mean %q?", c)
	}
	msg := fmt.Sprintf("--limit %q: %q matches no host or group", pattern, term)
	if pattern == term {
		msg = fmt.Sprintf("--limit %q matches no host or group", pattern)
	}
	return &Error{Msg: msg, Fix: fix}
}
