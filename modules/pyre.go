package modules

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// The text-editing modules (lineinfile, blockinfile, replace) take Python regular expressions
// and Python replacement templates. Go's regexp is RE2, which differs from Python where users
// notice: `$` does not match before a line's final newline, there is no lookaround and no
// backreference. regexp2 is a backtracking engine with .NET syntax, which agrees with Python on
// all of these; pyCompile translates the few spellings that differ ((?P<name>, (?P=name), \Z).

// pyRegexp is a compiled Python regular expression.
type pyRegexp struct {
	re        *regexp2.Regexp
	multiline bool // the pattern sets (?m) itself (blockinfile reads this as Python does)
}

// pyCompile compiles a Python regular expression, with Python's MULTILINE or DOTALL when asked.
func pyCompile(expr string, multiline, dotall bool) (*pyRegexp, error) {
	opts := regexp2.None
	if multiline {
		opts |= regexp2.Multiline
	}
	if dotall {
		opts |= regexp2.Singleline
	}
	re, err := regexp2.Compile(pyToNet(expr), opts, regexp2.OptionMaintainCaptureOrder())
	if err != nil {
		return nil, fmt.Errorf("regular expression %q: %v", expr, err)
	}
	// A backtracking engine can take exponential time on a pathological pattern: bound it, so a
	// task fails with a message instead of hanging.
	re.MatchTimeout = 10 * time.Second
	return &pyRegexp{re: re, multiline: inlineFlag(expr, 'm')}, nil
}

// pyToNet rewrites the Python-only spellings outside character classes.
func pyToNet(expr string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr):
			if expr[i+1] == 'Z' && !inClass {
				b.WriteString(`\z`)
			} else {
				b.WriteString(expr[i : i+2])
			}
			i++
			continue
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
			if strings.HasPrefix(expr[i+1:], "]") || strings.HasPrefix(expr[i+1:], "^]") {
				n := strings.IndexByte(expr[i+1:], ']') + 2
				b.WriteString(expr[i : i+n])
				i += n - 1
				continue
			}
		case strings.HasPrefix(expr[i:], "(?P<"):
			b.WriteString("(?<")
			i += 3
			continue
		case strings.HasPrefix(expr[i:], "(?P="):
			end := strings.IndexByte(expr[i:], ')')
			if end > 0 {
				b.WriteString(`\k<` + expr[i+4:i+end] + ">")
				i += end
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// inlineFlag reports whether expr starts with a global inline flag group holding flag, as
// Python requires global flags to be written.
func inlineFlag(expr string, flag byte) bool {
	for strings.HasPrefix(expr, "(?") {
		end := strings.IndexByte(expr, ')')
		if end < 0 {
			return false
		}
		flags := expr[2:end]
		if strings.Trim(flags, "aiLmsux") != "" {
			return false
		}
		if strings.IndexByte(flags, flag) >= 0 {
			return true
		}
		expr = expr[end+1:]
	}
	return false
}

// pyMatch is one match: byte offsets of every group (-1 for a group that did not take part).
type pyMatch struct {
	s      string
	groups [][2]int
	names  map[string]int
}

func (m *pyMatch) start() int { return m.groups[0][0] }
func (m *pyMatch) end() int   { return m.groups[0][1] }

func (m *pyMatch) group(i int) (string, bool) {
	if i >= len(m.groups) || m.groups[i][0] < 0 {
		return "", false
	}
	return m.s[m.groups[i][0]:m.groups[i][1]], true
}

// search is Python's re.search: the first match in s, or nil.
func (r *pyRegexp) search(s string) (*pyMatch, error) {
	m, err := r.re.FindStringMatch(s)
	if err != nil || m == nil {
		return nil, err
	}
	return r.convert(s, m), nil
}

// all is Python's re.finditer: every match, empty ones included as Python includes them.
func (r *pyRegexp) all(s string) ([]*pyMatch, error) {
	var out []*pyMatch
	m, err := r.re.FindStringMatch(s)
	for m != nil && err == nil {
		out = append(out, r.convert(s, m))
		m, err = r.re.FindNextMatch(m)
	}
	return out, err
}

func (r *pyRegexp) convert(s string, m *regexp2.Match) *pyMatch {
	groups := m.Groups()
	pm := &pyMatch{s: s, groups: make([][2]int, len(groups)), names: map[string]int{}}
	for i, g := range groups {
		pm.groups[i] = [2]int{-1, -1}
		if len(g.Captures) > 0 {
			start, n := g.ByteRange()
			pm.groups[i] = [2]int{start, start + n}
		}
		if _, err := strconv.Atoi(g.Name); err != nil {
			pm.names[g.Name] = i
		}
	}
	return pm
}

// sub is Python's re.subn: s with every match replaced by the template expanded, and the count.
func (r *pyRegexp) sub(s, template string) (string, int, error) {
	ms, err := r.all(s)
	if err != nil {
		return "", 0, err
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		rep, err := m.expand(template)
		if err != nil {
			return "", 0, err
		}
		b.WriteString(s[last:m.start()])
		b.WriteString(rep)
		last = m.end()
	}
	b.WriteString(s[last:])
	return b.String(), len(ms), nil
}

// expand is Python's match.expand: \1, \g<1>, \g<name>, the escapes \n \t \r \f \v \a \b \\ and
// octal \0nn; an unknown escape of an ASCII letter is an error, other unknown escapes are kept.
// A group that did not take part expands to "".
func (m *pyMatch) expand(t string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		if t[i] != '\\' || i+1 == len(t) {
			b.WriteByte(t[i])
			continue
		}
		n, err := m.escape(&b, t[i+1:])
		if err != nil {
			return "", fmt.Errorf("replacement %q: %v", t, err)
		}
		i += n
	}
	return b.String(), nil
}

// escape writes what the escape at the start of rest (after the backslash) means and returns
// how many bytes of rest it used.
func (m *pyMatch) escape(b *strings.Builder, rest string) (int, error) {
	c := rest[0]
	switch {
	case c == 'g':
		end := strings.IndexByte(rest, '>')
		if len(rest) < 3 || rest[1] != '<' || end < 0 {
			return 0, fmt.Errorf(`missing group name after \g`)
		}
		name := rest[2:end]
		idx, err := strconv.Atoi(name)
		if err != nil {
			var ok bool
			if idx, ok = m.names[name]; !ok {
				return 0, fmt.Errorf("unknown group name %q", name)
			}
		}
		return end + 1, m.writeGroup(b, idx)
	case c == '0' || isOctal3(rest):
		n := 1
		for n < 3 && n < len(rest) && rest[n] >= '0' && rest[n] <= '7' {
			n++
		}
		v, _ := strconv.ParseUint(rest[:n], 8, 32)
		b.WriteRune(rune(v))
		return n, nil
	case c >= '1' && c <= '9':
		n := 1
		if len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9' {
			n = 2
		}
		idx, _ := strconv.Atoi(rest[:n])
		return n, m.writeGroup(b, idx)
	}
	if e, ok := map[byte]string{'n': "\n", 't': "\t", 'r': "\r", 'f': "\f", 'v': "\v", 'a': "\a", 'b': "\b", '\\': `\`}[c]; ok {
		b.WriteString(e)
		return 1, nil
	}
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return 0, fmt.Errorf(`bad escape \%c`, c)
	}
	b.WriteByte('\\')
	b.WriteByte(c)
	return 1, nil
}

func isOctal3(s string) bool {
	return len(s) >= 3 && s[0] >= '0' && s[0] <= '7' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7'
}

func (m *pyMatch) writeGroup(b *strings.Builder, idx int) error {
	if idx >= len(m.groups) {
		return fmt.Errorf("invalid group reference %d", idx)
	}
	g, _ := m.group(idx)
	b.WriteString(g)
	return nil
}
