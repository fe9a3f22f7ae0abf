package playbooks

import (
	"strings"
)

// rawKeys are the options Ansible reads out of a free-form command's text (`iptables -F
// creates=/etc/firewall.bash`): its parse_kv with check_raw keeps every other word in the
// command.
var rawKeys = map[string]bool{"creates": true, "removes": true, "chdir": true, "executable": true,
	"stdin": true, "stdin_add_newline": true, "strip_empty_ends": true, "warn": true}

// splitRawParams returns the command without its key=value options, and the options; words
// are split at blanks outside quotes and {{ }} / {% %}, as Ansible's split_args does.
func splitRawParams(s string) (string, map[string]string) {
	words := rawWords(s)
	var keep []string
	opts := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if ok && rawKeys[k] {
			opts[k] = unquote(v)
			continue
		}
		keep = append(keep, w)
	}
	if len(opts) == 0 {
		return s, nil
	}
	return strings.Join(keep, " "), opts
}

func rawWords(s string) []string {
	var out []string
	var b strings.Builder
	var quote byte
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote && (i == 0 || s[i-1] != '\\') {
				quote = 0
			}
		case depth == 0 && (c == '\'' || c == '"'):
			quote = c
		case c == '{' && i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '%'):
			depth++
		case depth > 0 && (c == '}' || c == '%') && i+1 < len(s) && s[i+1] == '}':
			depth--
		case depth == 0 && (c == ' ' || c == '\t' || c == '\n'):
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
			continue
		}
		b.WriteByte(c)
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
