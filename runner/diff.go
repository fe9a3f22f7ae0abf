package runner

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/kupgrade/kupgrade/jinja"
)

// resultDiff is what the text output prints of a result's diff as Ansible's default callback
// does: a loop's changed items' diffs, in order, else the result's own when it changed.
func resultDiff(res map[string]any) string {
	if items, ok := res["results"].([]any); ok {
		var b strings.Builder
		for _, it := range items {
			if r, ok := it.(map[string]any); ok && truth(r["changed"]) && present(r["diff"]) {
				b.WriteString(diffText(r["diff"]))
			}
		}
		return b.String()
	}
	if !truth(res["changed"]) || !present(res["diff"]) {
		return ""
	}
	return diffText(res["diff"])
}

// present is Python's truth of a diff value: not None, not an empty list or mapping.
func present(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// diffContext is the lines of context around each change (Ansible's DIFF_CONTEXT).
const diffContext = 3

// diffText is a result's "diff" (one mapping or a list of them: before, after, their headers,
// or the markers of a diff Ansible skips) as Ansible's default callback prints it under --diff:
// a unified diff with "--- before: HEADER" and "+++ after: HEADER" lines, a mapping written as
// indented JSON, "\ No newline at end of file" where a side lacks the last newline, and a blank
// line after each diff that has a change.
func diffText(v any) string {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	var b strings.Builder
	for _, x := range list {
		d, _ := x.(map[string]any)
		for _, skip := range diffSkips {
			if n, ok := d[skip.key]; ok {
				b.WriteString(skip.text)
				if skip.size {
					fmt.Fprintf(&b, " %v", n)
				}
				b.WriteString("\n")
			}
		}
		if _, ok := d["before"]; ok {
			if _, ok := d["after"]; ok {
				b.WriteString(unifiedDiff(d))
			}
		}
		if p, ok := d["prepared"]; ok {
			b.WriteString(jinja.Str(p))
		}
	}
	return b.String()
}

// diffSkips are the markers of a diff not computed, in Ansible's order, with its words (and
// the size limit after them).
var diffSkips = []struct {
	key, text string
	size      bool
}{
	{"dst_binary", "diff skipped: destination file appears to be binary", false},
	{"src_binary", "diff skipped: source file appears to be binary", false},
	{"dst_larger", "diff skipped: destination file size is greater than", true},
	{"src_larger", "diff skipped: source file size is greater than", true},
}

// unifiedDiff is one before/after pair as difflib.unified_diff writes it for Ansible.
func unifiedDiff(d map[string]any) string {
	from, to := "before", "after"
	if h, ok := d["before_header"]; ok {
		from += ": " + jinja.Str(h)
	}
	if h, ok := d["after_header"]; ok {
		to += ": " + jinja.Str(h)
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: diffLines(d["before"]),
		B: diffLines(d["after"]), FromFile: from, ToFile: to, Context: diffContext})
	if err != nil || text == "" {
		return ""
	}
	return text + "\n"
}

// diffLines splits one side into lines that keep their ends, a mapping written as Ansible's
// _serialize_diff writes it, the last line marked when it has no newline.
func diffLines(v any) []string {
	var s string
	switch x := v.(type) {
	case nil:
	case string:
		s = x
	case map[string]any:
		s = jinja.DisplayJSON(x, 4) + "\n"
	default:
		s = jinja.Str(x)
	}
	lines := splitLinesKeep(s)
	if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
		lines[n-1] += "\n\\ No newline at end of file\n"
	}
	return lines
}

// splitLinesKeep is Python's str.splitlines(True) for \n, \r\n and \r ends.
func splitLinesKeep(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			out = append(out, s)
			break
		}
		j := i + 1
		if s[i] == '\r' && j < len(s) && s[j] == '\n' {
			j++
		}
		out = append(out, s[:j])
		s = s[j:]
	}
	return out
}
