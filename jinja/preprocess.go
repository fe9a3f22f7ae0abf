package jinja

import (
	"regexp"
	"strings"
)

// dotMark stands for "." inside a dotted filter or test name, which gonja cannot parse: the
// name of an unsupported collection's filter (ansible.utils.ipmath) is then reported whole.
const dotMark = "__dot__"

// fqcnRef is a dotted filter or test name after "|" or "is [not]".
var fqcnRef = regexp.MustCompile(`(\|\s*|\bis\s+(?:not\s+)?)([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)`)

// preprocess prepares Ansible's Jinja for gonja, outside string literals and inside them:
//   - dotted filter and test names: ansible.builtin.X and ansible.legacy.X become X, another
//     collection's name is kept whole (with dotMark) for the "not supported" error;
//   - backslashes in the string literals of {{ }} are doubled, as Ansible does so that a
//     playbook writes '\1' rather than '\\1' (not when raw: a condition, which Ansible
//     evaluates in {% if %}, and a template file);
//   - an escape Python keeps as it is ('\.' in a regular expression) is kept, where gonja
//     would refuse it.
func preprocess(s string, raw bool) string {
	if !strings.Contains(s, ".") && !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		start := strings.Index(s[i:], "{")
		if start < 0 || i+start+1 >= len(s) || (s[i+start+1] != '{' && s[i+start+1] != '%') {
			if start < 0 {
				b.WriteString(s[i:])
				break
			}
			b.WriteString(s[i : i+start+1])
			i += start + 1
			continue
		}
		start += i
		b.WriteString(s[i : start+2])
		i = codeBlock(&b, s, start+2, s[start+1] == '{' && !raw)
	}
	return b.String()
}

// codeBlock copies the code of one {{ }} or {% %} from s[i:] to b, rewriting as preprocess
// says, and returns where it ends.
func codeBlock(b *strings.Builder, s string, i int, double bool) int {
	closer := "}}"
	if s[i-1] == '%' {
		closer = "%}"
	}
	code := i
	for i < len(s) && !strings.HasPrefix(s[i:], closer) {
		q := s[i]
		if q != '\'' && q != '"' {
			i++
			continue
		}
		b.WriteString(fqcnNames(s[code:i]))
		b.WriteByte(q)
		for i++; i < len(s) && s[i] != q; i++ {
			if s[i] != '\\' || i+1 >= len(s) {
				b.WriteByte(s[i])
				continue
			}
			switch {
			case double:
				b.WriteString(`\\`)
			case strings.IndexByte(`\'"abfnrtvxuU01234567`, s[i+1]) < 0:
				b.WriteString(`\\`)
			default:
				b.WriteByte('\\')
				b.WriteByte(s[i+1])
				i++
			}
		}
		if i < len(s) {
			b.WriteByte(q)
			i++
		}
		code = i
	}
	b.WriteString(fqcnNames(s[code:i]))
	return i
}

func fqcnNames(code string) string {
	return fqcnRef.ReplaceAllStringFunc(code, func(m string) string {
		sub := fqcnRef.FindStringSubmatch(m)
		name := sub[2]
		short, ok := strings.CutPrefix(name, "ansible.builtin.")
		if !ok {
			short, ok = strings.CutPrefix(name, "ansible.legacy.")
		}
		for _, c := range collectionFilters {
			if f, isOf := strings.CutPrefix(name, c); isOf && !ok && !strings.HasPrefix(sub[1], "is") {
				short, ok = f, netFilters()[f] != nil
			}
		}
		if !ok {
			short = strings.ReplaceAll(name, ".", dotMark)
		}
		return sub[1] + short
	})
}
