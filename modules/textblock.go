package modules

import (
	"fmt"
	"strings"
)

// blockOpts are blockinfile's arguments.
type blockOpts struct {
	block, marker, markerBegin, markerEnd string
	insertAfter, insertBefore             *string
	present                               bool
}

// splitLinesKeep is Python's bytes.splitlines(True): lines end at "\n", "\r\n" or "\r".
func splitLinesKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			out = append(out, s)
			break
		}
		n := i + 1
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// blockInFile is Ansible's blockinfile main(), from reading the file to the message; exists
// says whether the file was there (data is nil otherwise).
func blockInFile(data []byte, exists bool, o blockOpts) (editResult, error) {
	original := string(data)
	lines := splitLinesKeep(original)
	if o.insertAfter == nil && o.insertBefore == nil {
		eof := "EOF"
		o.insertAfter = &eof
	}
	var ins *pyRegexp
	if pat := insertPattern(o.insertAfter, o.insertBefore, false); pat != nil {
		var err error
		if ins, err = pyCompile(*pat, false, false); err != nil {
			return editResult{}, err
		}
	}
	m0 := strings.ReplaceAll(o.marker, "{mark}", o.markerBegin) + "\n"
	m1 := strings.ReplaceAll(o.marker, "{mark}", o.markerEnd) + "\n"
	var blockLines []string
	if o.present && o.block != "" {
		block := o.block
		if !strings.HasSuffix(block, "\n") {
			block += "\n"
		}
		blockLines = append(append([]string{m0}, splitLinesKeep(block)...), m1)
	}
	n0, n1 := -1, -1
	for i, l := range lines {
		if l == m0 {
			n0 = i
		}
		if l == m1 {
			n1 = i
		}
	}
	switch {
	case n0 == -1 || n1 == -1:
		n, err := blockInsertAt(original, lines, ins, o)
		if err != nil {
			return editResult{}, err
		}
		n0 = n
	case n0 < n1:
		lines = append(lines[:n0], lines[n1+1:]...)
	default:
		lines = append(lines[:n1], lines[n0+1:]...)
		n0 = n1
	}
	if n0 > 0 && !strings.HasSuffix(lines[n0-1], "\n") {
		lines[n0-1] += "\n"
	}
	lines = append(lines[:n0], append(blockLines, lines[n0:]...)...)
	result := strings.Join(lines, "")
	res := editResult{content: []byte(result)}
	switch {
	case exists && original == result:
	case !exists: // even empty: Python finds None and b'' different
		res.msg, res.changed = "File created", true
	case blockLines == nil:
		res.msg, res.changed = "Block removed", true
	default:
		res.msg, res.changed = "Block inserted", true
	}
	return res, nil
}

// blockInsertAt is where a block without both markers in the file goes.
func blockInsertAt(original string, lines []string, ins *pyRegexp, o blockOpts) (int, error) {
	if ins == nil {
		if o.insertBefore != nil {
			return 0, nil // BOF
		}
		return len(lines), nil // EOF
	}
	n0 := -1
	if ins.multiline {
		m, err := ins.search(original)
		if err != nil {
			return 0, fmt.Errorf("insert pattern: %v", err)
		}
		if m != nil {
			if o.insertAfter != nil {
				n0 = strings.Count(original[:m.end()], "\n")
			} else {
				n0 = strings.Count(original[:m.start()], "\n")
			}
		}
	} else {
		for i, l := range lines {
			if ins.mustSearch(l) {
				n0 = i
			}
		}
	}
	if n0 == -1 {
		return len(lines), nil
	}
	if o.insertAfter != nil {
		n0++
	}
	return n0, nil
}

// replaceOpts are replace's arguments.
type replaceOpts struct {
	regexp, replace string
	after, before   string
}

// replaceIn is Ansible's replace main(): the regexp in MULTILINE mode, within the section
// between after and before (DOTALL) when given.
func replaceIn(data []byte, o replaceOpts) (editResult, error) {
	contents := string(data)
	pattern := ""
	switch {
	case o.after != "" && o.before != "":
		pattern = o.after + "(?P<subsection>.*?)" + o.before
	case o.after != "":
		pattern = o.after + "(?P<subsection>.*)"
	case o.before != "":
		pattern = "(?P<subsection>.*)" + o.before
	}
	section, from, to := contents, 0, len(contents)
	if pattern != "" {
		sre, err := pyCompile(pattern, false, true)
		if err != nil {
			return editResult{}, err
		}
		m, err := sre.search(contents)
		if err != nil {
			return editResult{}, err
		}
		if m == nil {
			return editResult{content: data, msg: "Pattern for before/after params did not match the given file: " + pattern}, nil
		}
		g := m.groups[m.names["subsection"]]
		section, from, to = contents[g[0]:g[1]], g[0], g[1]
	}
	re, err := pyCompile(o.regexp, true, false)
	if err != nil {
		return editResult{}, err
	}
	out, n, err := re.sub(section, o.replace)
	if err != nil {
		return editResult{}, err
	}
	if n == 0 || out == section {
		return editResult{content: data}, nil
	}
	return editResult{content: []byte(contents[:from] + out + contents[to:]), changed: true,
		msg: fmt.Sprintf("%d replacements made", n)}, nil
}
