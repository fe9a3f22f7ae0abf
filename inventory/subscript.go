package inventory

import (
	"fmt"
	"regexp"
	"strconv"
)

// subscriptRE is Ansible's PATTERN_WITH_SUBSCRIPT: a term followed by [N], [-N], [A:B] or [A:]
// ([A-B] is the old spelling of [A:B]).
var subscriptRE = regexp.MustCompile(`^(.+)\[(?:(-?[0-9]+)|([0-9]+)([:-])([0-9]*))\]$`)

// subscript is a parsed [..] of a --limit term.
type subscript struct {
	text       string
	start, end int
	single     bool
}

// splitSubscript separates web[0] into web and [0]; a regular expression keeps its brackets.
func splitSubscript(term string) (string, *subscript) {
	if term == "" || term[0] == '~' {
		return term, nil
	}
	m := subscriptRE.FindStringSubmatch(term)
	if m == nil {
		return term, nil
	}
	sub := &subscript{text: term[len(m[1]):]}
	if m[2] != "" {
		sub.start, _ = strconv.Atoi(m[2])
		sub.single = true
		return m[1], sub
	}
	sub.start, _ = strconv.Atoi(m[3])
	sub.end = -1
	if m[5] != "" {
		sub.end, _ = strconv.Atoi(m[5])
	}
	return m[1], sub
}

// apply selects from hosts (in Ansible's order for the term) as Ansible's _apply_subscript does:
// [N] is one host (negative counts from the end), [A:B] hosts A to B inclusive, [A:] A to the end.
func (s *subscript) apply(pattern, term string, hosts []string) ([]string, error) {
	n := len(hosts)
	outOfRange := func(i int) error {
		return &Error{Msg: fmt.Sprintf("--limit %q: %s%s is out of range: %q matches %d hosts", pattern, term, s.text, term, n),
			Fix: fmt.Sprintf("index from 0 to %d, or from -1 to -%d counting from the end", n-1, n)}
	}
	if s.single {
		i := s.start
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, outOfRange(s.start)
		}
		return hosts[i : i+1], nil
	}
	end := s.end
	if end == 0 { // Python's `if end:` treats [A:0] as [A]
		if s.start >= n {
			return nil, outOfRange(s.start)
		}
		return hosts[s.start : s.start+1], nil
	}
	if end == -1 || end >= n {
		end = n - 1
	}
	if s.start > end {
		return nil, &Error{Msg: fmt.Sprintf("--limit %q: %s%s selects no host: %q matches %d hosts", pattern, term, s.text, term, n),
			Fix: "write [FIRST:LAST] with FIRST <= LAST, counting from 0"}
	}
	return hosts[s.start : end+1], nil
}
