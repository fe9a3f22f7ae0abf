package sim

import (
	"context"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/interp"
)

// lines splits text into its lines, without their newlines.
func lines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// filter runs f over files (read from h's disk, joined) or standard input, and writes what it
// returns to standard output, or back into each file with inPlace (sed -i).
func (h *Host) filter(ctx context.Context, hc interp.HandlerContext, name string, files []string, inPlace bool, f func(string) string) int {
	if len(files) == 0 {
		in, _ := io.ReadAll(stdin(hc))
		fmt.Fprint(hc.Stdout, f(string(in)))
		return 0
	}
	for _, file := range files {
		p := abs(ctx, file)
		data, ok := h.File(p)
		if !ok {
			fmt.Fprintf(hc.Stderr, "%s: can't read %s: No such file or directory\n", name, file)
			return 2
		}
		if !inPlace {
			fmt.Fprint(hc.Stdout, f(data))
			continue
		}
		h.writeFile(p, f(data))
	}
	return 0
}

// writeFile replaces the content of p on h's disk.
func (h *Host) writeFile(p, data string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.disk.write(p, []byte(data), time.Now())
}

// head is `head [-n N | -N] [FILE...]`.
func (h *Host) head(ctx context.Context, hc interp.HandlerContext, args []string) int {
	n, files := 10, []string{}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-n" && i+1 < len(args):
			n, _ = strconv.Atoi(args[i+1])
			i++
		case strings.HasPrefix(a, "-n"):
			n, _ = strconv.Atoi(a[2:])
		case strings.HasPrefix(a, "-") && len(a) > 1:
			n, _ = strconv.Atoi(a[1:])
		default:
			files = append(files, a)
		}
	}
	return h.filter(ctx, hc, "head", files, false, func(in string) string {
		ls := lines(in)
		return joinLines(ls[:min(n, len(ls))])
	})
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// cut is `cut -d C -f N[,M...] [FILE...]`.
func (h *Host) cut(ctx context.Context, hc interp.HandlerContext, args []string) int {
	delim, fields, files := "\t", []int{}, []string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "-d" || a == "-f") && i+1 < len(args) {
			a, i = a+args[i+1], i+1
		}
		switch {
		case strings.HasPrefix(a, "-d"):
			delim = a[2:]
		case strings.HasPrefix(a, "-f"):
			for _, f := range strings.Split(a[2:], ",") {
				n, _ := strconv.Atoi(f)
				fields = append(fields, n)
			}
		default:
			files = append(files, a)
		}
	}
	return h.filter(ctx, hc, "cut", files, false, func(in string) string {
		var out []string
		for _, l := range lines(in) {
			parts := strings.Split(l, delim)
			var keep []string
			for _, f := range fields {
				if f >= 1 && f <= len(parts) {
					keep = append(keep, parts[f-1])
				}
			}
			out = append(out, strings.Join(keep, delim))
		}
		return joinLines(out)
	})
}

// tr is `tr -d CHARS` and `tr FROM TO` over characters listed one by one.
func tr(_ *Host, _ context.Context, hc interp.HandlerContext, args []string) int {
	in, _ := io.ReadAll(stdin(hc))
	switch {
	case len(args) == 2 && args[0] == "-d":
		fmt.Fprint(hc.Stdout, strings.Map(func(r rune) rune {
			if strings.ContainsRune(args[1], r) {
				return -1
			}
			return r
		}, string(in)))
	case len(args) == 2 && len(args[0]) == len(args[1]):
		fmt.Fprint(hc.Stdout, strings.Map(func(r rune) rune {
			if i := strings.IndexRune(args[0], r); i >= 0 {
				return rune(args[1][i])
			}
			return r
		}, string(in)))
	default:
		fmt.Fprintf(hc.Stderr, "tr: only tr -d SET and tr FROM TO are simulated, not %q\n", args)
		return 1
	}
	return 0
}

// dirname and basename print the folder and the last element of their operand.
func dirname(_ *Host, _ context.Context, hc interp.HandlerContext, args []string) int {
	fmt.Fprintln(hc.Stdout, path.Dir(args[len(args)-1]))
	return 0
}

func basename(_ *Host, _ context.Context, hc interp.HandlerContext, args []string) int {
	fmt.Fprintln(hc.Stdout, path.Base(args[0]))
	return 0
}
