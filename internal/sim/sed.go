package sim

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// sedCmd is one command of a sed script: s/RE/REPLACEMENT/FLAGS, or p.
type sedCmd struct {
	re     *regexp.Regexp
	repl   string
	global bool
	print  bool // the s command's p flag, or the p command
}

// sed is the part of POSIX sed kupgrade's scripts use: -n, -e, -E/-r, -i, and scripts of s
// commands (any delimiter, flags g and p) and p, separated by ';' or newlines; no addresses.
func (h *Host) sed(ctx context.Context, hc interp.HandlerContext, args []string) int {
	quiet, inPlace, ere, scripts, files := false, false, false, []string{}, []string{}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-n":
			quiet = true
		case a == "-i":
			inPlace = true
		case a == "-E" || a == "-r":
			ere = true
		case a == "-e" && i+1 < len(args):
			scripts = append(scripts, args[i+1])
			i++
		case len(scripts) == 0 && !strings.HasPrefix(a, "-"):
			scripts = append(scripts, a)
		default:
			files = append(files, a)
		}
	}
	cmds, err := parseSed(strings.Join(scripts, "\n"), ere)
	if err != nil {
		fmt.Fprintf(hc.Stderr, "sed: %v\n", err)
		return 1
	}
	return h.filter(ctx, hc, "sed", files, inPlace, func(in string) string { return runSed(cmds, quiet, in) })
}

func runSed(cmds []sedCmd, quiet bool, in string) string {
	var out strings.Builder
	for _, line := range lines(in) {
		for _, c := range cmds {
			line = c.apply(line, &out)
		}
		if !quiet {
			out.WriteString(line + "\n")
		}
	}
	return out.String()
}

func (c sedCmd) apply(line string, out *strings.Builder) string {
	if c.re == nil {
		out.WriteString(line + "\n")
		return line
	}
	limit := 1
	if c.global {
		limit = -1
	}
	found := c.re.FindAllStringSubmatchIndex(line, limit)
	matched := len(found) > 0
	var b []byte
	last := 0
	for _, m := range found {
		b = append(b, line[last:m[0]]...)
		b = c.re.ExpandString(b, c.repl, line, m)
		last = m[1]
	}
	if matched {
		line = string(append(b, line[last:]...))
	}
	if matched && c.print {
		out.WriteString(line + "\n")
	}
	return line
}

func parseSed(script string, ere bool) ([]sedCmd, error) {
	var cmds []sedCmd
	for script = strings.TrimLeft(script, " ;\n"); script != ""; script = strings.TrimLeft(script, " ;\n") {
		switch {
		case script[0] == 'p':
			cmds, script = append(cmds, sedCmd{print: true}), script[1:]
		case script[0] == 's' && len(script) > 1:
			c, rest, err := parseSubst(script[1:], ere)
			if err != nil {
				return nil, err
			}
			cmds, script = append(cmds, c), rest
		default:
			return nil, fmt.Errorf("the simulated sed runs s and p commands only, not %q", script)
		}
	}
	return cmds, nil
}

// parseSubst reads DELIM RE DELIM REPLACEMENT DELIM FLAGS and returns what follows.
func parseSubst(s string, ere bool) (sedCmd, string, error) {
	d := s[0]
	parts, rest := splitDelim(s[1:], d, 2)
	if len(parts) != 2 {
		return sedCmd{}, "", fmt.Errorf("unterminated s command %q", s)
	}
	pattern := parts[0]
	if !ere {
		pattern = breToRE2(pattern)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return sedCmd{}, "", fmt.Errorf("s command %q: %v", s, err)
	}
	c := sedCmd{re: re, repl: sedReplacement(parts[1])}
	for rest != "" && strings.IndexByte("gp", rest[0]) >= 0 {
		c.global, c.print = c.global || rest[0] == 'g', c.print || rest[0] == 'p'
		rest = rest[1:]
	}
	return c, rest, nil
}

// splitDelim splits s at n unescaped delimiters d (an escaped delimiter stands for itself).
func splitDelim(s string, d byte, n int) ([]string, string) {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == d:
			cur.WriteByte(d)
			i++
		case s[i] == '\\' && i+1 < len(s):
			cur.WriteString(s[i : i+2])
			i++
		case s[i] == d:
			if parts = append(parts, cur.String()); len(parts) == n {
				return parts, s[i+1:]
			}
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	return parts, ""
}

// breToRE2 turns a POSIX basic regular expression into Go's syntax: \( \) \{ \} \+ \? \| are
// the operators, their bare forms literals.
func breToRE2(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p) && strings.IndexByte("(){}+?|", p[i+1]) >= 0:
			b.WriteByte(p[i+1])
			i++
		case c == '\\' && i+1 < len(p):
			b.WriteString(p[i : i+2])
			i++
		case strings.IndexByte("(){}+?|", c) >= 0:
			b.WriteString(`\` + string(c))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// sedReplacement turns sed's \1 and & into Go's ${1} and ${0}.
func sedReplacement(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		switch c := r[i]; {
		case c == '\\' && i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9':
			b.WriteString("${" + string(r[i+1]) + "}")
			i++
		case c == '\\' && i+1 < len(r) && r[i+1] == 'n':
			b.WriteByte('\n')
			i++
		case c == '\\' && i+1 < len(r):
			b.WriteString(strings.ReplaceAll(string(r[i+1]), "$", "$$"))
			i++
		case c == '&':
			b.WriteString("${0}")
		case c == '$':
			b.WriteString("$$")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
