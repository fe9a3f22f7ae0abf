package modules

import (
	"fmt"
	"strings"
)

// The pure halves of lineinfile, blockinfile and replace: each takes the file's content (nil
// when the file does not exist) and the module's arguments and returns the new content, whether
// it changed and Ansible's message. They follow ansible-core's modules line by line, so the
// bytes written, the messages and the newline handling at the end of a file are Ansible's
// (runner/testdata/textedit holds cases recorded from ansible-core).

// lineOpts are lineinfile's arguments.
type lineOpts struct {
	regexp, search, line       *string
	insertAfter, insertBefore  *string
	backrefs, firstMatch, drop bool // drop: state=absent
}

// editResult is what an edit made of a file.
type editResult struct {
	content []byte
	changed bool
	msg     string
	found   int // lineinfile state=absent: lines removed
}

// readLines is Python's readlines on bytes: split after every "\n".
func readLines(data []byte) []string {
	s := string(data)
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func stripEOL(s string) string { return strings.TrimRight(s, "\r\n") }

func lineInFile(data []byte, o lineOpts) (editResult, error) {
	if o.drop {
		return lineAbsent(data, o)
	}
	lines := readLines(data)
	var re, ins *pyRegexp
	var err error
	if o.regexp != nil {
		if re, err = pyCompile(*o.regexp, false, false); err != nil {
			return editResult{}, err
		}
	}
	if pat := insertPattern(o.insertAfter, o.insertBefore, true); pat != nil {
		if ins, err = pyCompile(*pat, false, false); err != nil {
			return editResult{}, err
		}
	}
	index := [2]int{-1, -1}
	var match *pyMatch
	matched := false
	for i, l := range lines {
		if re != nil {
			m, err := re.search(l)
			if err != nil {
				return editResult{}, err
			}
			if m != nil {
				index[0], match, matched = i, m, true
				if o.firstMatch {
					break
				}
			}
		} else if o.search != nil && strings.Contains(l, *o.search) {
			index[0], matched = i, true
			if o.firstMatch {
				break
			}
		}
	}
	if !matched {
		for i, l := range lines {
			if *o.line == stripEOL(l) {
				index[0] = i
			} else if ins != nil && ins.mustSearch(l) {
				if o.insertAfter != nil {
					index[1] = i + 1
				} else {
					index[1] = i
				}
				if o.firstMatch {
					break
				}
			}
		}
	}
	return linePlace(lines, o, index, match)
}

// insertPattern is the regular expression of insertafter/insertbefore, nil for BOF, EOF or none.
// lineinfile reads insertafter=BOF as a keyword, blockinfile as a pattern.
func insertPattern(after, before *string, afterBOF bool) *string {
	if after != nil && *after != "EOF" && (*after != "BOF" || !afterBOF) {
		return after
	}
	if before != nil && *before != "BOF" {
		return before
	}
	return nil
}

// mustSearch is search for the insert patterns, whose errors (a backtracking limit) count as no
// match.
func (r *pyRegexp) mustSearch(s string) bool {
	m, err := r.search(s)
	return err == nil && m != nil
}

// linePlace puts the line where lineinfile's search decided (Ansible's present()).
func linePlace(lines []string, o lineOpts, index [2]int, match *pyMatch) (editResult, error) {
	line := *o.line
	res := editResult{msg: ""}
	switch {
	case index[0] != -1:
		nl := line
		if o.backrefs && match != nil {
			var err error
			if nl, err = match.expand(line); err != nil {
				return editResult{}, err
			}
		}
		if !strings.HasSuffix(nl, "\n") {
			nl += "\n"
		}
		if lines[index[0]] != nl {
			lines[index[0]] = nl
			res.msg, res.changed = "line replaced", true
		}
	case o.backrefs:
	case isStr(o.insertBefore, "BOF") || isStr(o.insertAfter, "BOF"):
		lines = append([]string{line + "\n"}, lines...)
		res.msg, res.changed = "line added", true
	case isStr(o.insertAfter, "EOF") || index[1] == -1:
		if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") && !strings.HasSuffix(lines[n-1], "\r") {
			lines = append(lines, "\n")
		}
		lines = append(lines, line+"\n")
		res.msg, res.changed = "line added", true
	case o.insertAfter != nil && index[1] != -1:
		if len(lines) == index[1] {
			if stripEOL(lines[index[1]-1]) != line {
				lines = append(lines, line+"\n")
				res.msg, res.changed = "line added", true
			}
		} else if stripEOL(lines[index[1]]) != line {
			lines = insertAt(lines, index[1], line+"\n")
			res.msg, res.changed = "line added", true
		}
	default:
		lines = insertAt(lines, index[1], line+"\n")
		res.msg, res.changed = "line added", true
	}
	res.content = []byte(strings.Join(lines, ""))
	return res, nil
}

func isStr(p *string, s string) bool { return p != nil && *p == s }

func insertAt(lines []string, i int, l string) []string {
	lines = append(lines, "")
	copy(lines[i+1:], lines[i:])
	lines[i] = l
	return lines
}

// lineAbsent removes every line the regexp, search_string or line matches (Ansible's absent()).
func lineAbsent(data []byte, o lineOpts) (editResult, error) {
	var re *pyRegexp
	if o.regexp != nil {
		var err error
		if re, err = pyCompile(*o.regexp, false, false); err != nil {
			return editResult{}, err
		}
	}
	var kept []string
	found := 0
	for _, l := range readLines(data) {
		var hit bool
		switch {
		case re != nil:
			m, err := re.search(l)
			if err != nil {
				return editResult{}, err
			}
			hit = m != nil
		case o.search != nil:
			hit = strings.Contains(l, *o.search)
		default:
			hit = *o.line == stripEOL(l)
		}
		if hit {
			found++
		} else {
			kept = append(kept, l)
		}
	}
	res := editResult{content: []byte(strings.Join(kept, "")), changed: found > 0, found: found}
	if found > 0 {
		res.msg = fmt.Sprintf("%d line(s) removed", found)
	}
	return res, nil
}
