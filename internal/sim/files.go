package sim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"mvdan.cc/sh/v3/interp"
)

// flags splits leading -x options (and "--") from the operands.
func flags(args []string) (opts map[string]bool, rest []string) {
	opts = map[string]bool{}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		for _, c := range a[1:] {
			opts[string(c)] = true
		}
	}
	return opts, args
}

func (h *Host) mkdir(ctx context.Context, hc interp.HandlerContext, args []string) int {
	var ops []string
	parents := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-p":
			parents = true
		case a == "-m":
			i++
		case strings.HasPrefix(a, "-m"):
		default:
			ops = append(ops, a)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, o := range ops {
		p := abs(ctx, o)
		_, exists := h.disk[p]
		_, parent := h.disk[path.Dir(p)]
		switch {
		case exists && !parents:
			fmt.Fprintf(hc.Stderr, "mkdir: cannot create directory '%s': File exists\n", o)
			return 1
		case !parent && !parents && path.Dir(p) != "/":
			fmt.Fprintf(hc.Stderr, "mkdir: cannot create directory '%s': No such file or directory\n", o)
			return 1
		}
		h.disk.mkdirAll(p, time.Now())
	}
	return 0
}

func (h *Host) touch(ctx context.Context, _ interp.HandlerContext, args []string) int {
	_, ops := flags(args)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, o := range ops {
		p := abs(ctx, o)
		if f, ok := h.disk[p]; ok {
			f.mtime = time.Now()
			continue
		}
		h.disk.write(p, nil, time.Now())
	}
	return 0
}

func (h *Host) mv(ctx context.Context, hc interp.HandlerContext, args []string) int {
	_, ops := flags(args)
	if len(ops) != 2 {
		fmt.Fprintln(hc.Stderr, "mv: want SOURCE DEST")
		return 1
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.disk.rename(abs(ctx, ops[0]), abs(ctx, ops[1])) {
		fmt.Fprintf(hc.Stderr, "mv: cannot stat '%s': No such file or directory\n", ops[0])
		return 1
	}
	return 0
}

func (h *Host) cp(ctx context.Context, hc interp.HandlerContext, args []string) int {
	_, ops := flags(args)
	if len(ops) != 2 {
		fmt.Fprintln(hc.Stderr, "cp: want SOURCE DEST")
		return 1
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	src, ok := h.disk[abs(ctx, ops[0])]
	if !ok || src.dir {
		fmt.Fprintf(hc.Stderr, "cp: cannot stat '%s': No such file or directory\n", ops[0])
		return 1
	}
	dst := abs(ctx, ops[1])
	if d, ok := h.disk[dst]; ok && d.dir {
		dst = path.Join(dst, path.Base(ops[0]))
	}
	h.disk[dst] = &memFile{data: src.data, mode: src.mode, mtime: src.mtime}
	return 0
}

func (h *Host) rm(ctx context.Context, _ interp.HandlerContext, args []string) int {
	_, ops := flags(args)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, o := range ops {
		h.disk.removeAll(abs(ctx, o))
	}
	return 0
}

func (h *Host) cat(ctx context.Context, hc interp.HandlerContext, args []string) int {
	_, ops := flags(args)
	for _, o := range ops {
		data, ok := h.File(abs(ctx, o))
		if !ok {
			fmt.Fprintf(hc.Stderr, "cat: %s: No such file or directory\n", o)
			return 1
		}
		fmt.Fprint(hc.Stdout, data)
	}
	return 0
}

// statCmd is `stat -c %Y PATH...`: the modification time in seconds.
func (h *Host) statCmd(ctx context.Context, hc interp.HandlerContext, args []string) int {
	if len(args) < 3 || args[0] != "-c" || args[1] != "%Y" {
		fmt.Fprintf(hc.Stderr, "stat: only stat -c %%Y is simulated, not %q\n", args)
		return 1
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, o := range args[2:] {
		f, ok := h.disk[abs(ctx, o)]
		if !ok {
			fmt.Fprintf(hc.Stderr, "stat: cannot statx '%s': No such file or directory\n", o)
			return 1
		}
		fmt.Fprintln(hc.Stdout, f.mtime.Unix())
	}
	return 0
}

// grep is `grep [-m N] TEXT [FILE]` (stdin without FILE): lines holding TEXT, a fixed string
// or one anchored at the start with ^ (the scripts need no more).
func (h *Host) grep(ctx context.Context, hc interp.HandlerContext, args []string) int {
	limit := -1
	var ops []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-m" && i+1 < len(args):
			fmt.Sscan(args[i+1], &limit)
			i++
		case strings.HasPrefix(a, "-m"):
			fmt.Sscan(a[2:], &limit)
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) != 1 && len(ops) != 2 {
		fmt.Fprintln(hc.Stderr, "grep: want TEXT [FILE]")
		return 2
	}
	data, rc := h.input(ctx, hc, "grep", strings.Join(ops[1:], ""))
	if rc != 0 {
		return 2
	}
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() && found != limit {
		if greps(sc.Text(), ops[0]) {
			fmt.Fprintln(hc.Stdout, sc.Text())
			found++
		}
	}
	if found == 0 {
		return 1
	}
	return 0
}

// greps says whether line holds text, or starts with it when text starts with ^.
func greps(line, text string) bool {
	if t, ok := strings.CutPrefix(text, "^"); ok {
		return strings.HasPrefix(line, t)
	}
	return strings.Contains(line, text)
}
