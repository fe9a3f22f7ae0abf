package jinja

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// pyRegexp compiles a Python regular expression: (?P<name>) is Go's syntax too; flags come from
// the ignorecase and multiline arguments.
func pyRegexp(pattern any, kw map[string]any) (*regexp.Regexp, error) {
	flags := ""
	if truth(kw["ignorecase"]) {
		flags += "i"
	}
	if truth(kw["multiline"]) {
		flags += "m"
	}
	p := str(pattern)
	if flags != "" {
		p = "(?" + flags + ")" + p
	}
	return regexp.Compile(p)
}

var pythonGroup = regexp.MustCompile(`\\(\d+)|\\g<(\w+)>`)

func fRegexReplace(in any, args []any, kw map[string]any) (any, error) {
	re, err := pyRegexp(arg(args, kw, 0, "pattern", ""), kw)
	if err != nil {
		return nil, err
	}
	repl := str(arg(args, kw, 1, "replacement", ""))
	repl = strings.ReplaceAll(repl, "$", "$$")
	repl = pythonGroup.ReplaceAllString(repl, `$${$1$2}`)
	return re.ReplaceAllString(str(in), repl), nil
}

// fRegexSearch is regex_search(pattern, *groups): the match, or the listed groups ('\\1',
// '\\g<name>'), or None.
func fRegexSearch(in any, args []any, kw map[string]any) (any, error) {
	re, err := pyRegexp(arg(args, kw, 0, "pattern", ""), kw)
	if err != nil {
		return nil, err
	}
	m := re.FindStringSubmatchIndex(str(in))
	if m == nil {
		return nil, nil
	}
	s := str(in)
	if len(args) <= 1 {
		return s[m[0]:m[1]], nil
	}
	var out []any
	for _, g := range args[1:] {
		ref := pythonGroup.FindStringSubmatch(str(g))
		if ref == nil {
			return nil, fmt.Errorf("unknown group %q", str(g))
		}
		i := re.SubexpIndex(ref[2])
		if ref[1] != "" {
			i, _ = strconv.Atoi(ref[1])
		}
		if i < 0 || 2*i+1 >= len(m) || m[2*i] < 0 {
			out = append(out, nil)
			continue
		}
		out = append(out, s[m[2*i]:m[2*i+1]])
	}
	return out, nil
}

func fRegexFindall(in any, args []any, kw map[string]any) (any, error) {
	re, err := pyRegexp(arg(args, kw, 0, "pattern", ""), kw)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, m := range re.FindAllStringSubmatch(str(in), -1) {
		switch len(m) {
		case 1:
			out = append(out, m[0])
		case 2:
			out = append(out, m[1])
		default:
			out = append(out, strList(m[1:]))
		}
	}
	return out, nil
}

func fRegexEscape(in any, _ []any, _ map[string]any) (any, error) {
	return regexp.QuoteMeta(str(in)), nil
}
