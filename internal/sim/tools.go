package sim

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/interp"
)

// tool is a simulated command.
type tool func(h *Host, ctx context.Context, hc interp.HandlerContext, args []string) int

var tools map[string]tool

func init() {
	tools = map[string]tool{
		"sudo": (*Host).sudo, "env": (*Host).env, "sh": (*Host).sh, "bash": (*Host).sh, "setsid": (*Host).setsid,
		"kubeadm": (*Host).kubeadm, "kubelet": (*Host).kubelet, "kubectl": (*Host).kubectl, "kupgrade-lab-kubelet": (*Host).labKubelet,
		"kupgrade-lab-kubeadm": (*Host).labKubeadm,
		"flock":                (*Host).flock, "mkdir": (*Host).mkdir, "touch": (*Host).touch, "mv": (*Host).mv, "cp": (*Host).cp,
		"rm": (*Host).rm, "rmdir": (*Host).rm, "cat": (*Host).cat, "sha256sum": (*Host).sha256sum, "stat": (*Host).statCmd,
		"grep": (*Host).grep, "sed": (*Host).sed, "head": (*Host).head, "cut": (*Host).cut, "tr": tr,
		"dirname": dirname, "basename": basename, "date": date, "sleep": sleep, "true": func(*Host, context.Context, interp.HandlerContext, []string) int { return 0 },
		"false": func(*Host, context.Context, interp.HandlerContext, []string) int { return 1 },
		"id": func(_ *Host, _ context.Context, hc interp.HandlerContext, _ []string) int {
			fmt.Fprintln(hc.Stdout, "0")
			return 0
		},
		"chmod":   func(*Host, context.Context, interp.HandlerContext, []string) int { return 0 },
		"openssl": (*Host).openssl, "base64": base64Decode,
	}
}

// exec runs a command that is not a shell builtin: a simulated tool, or "command not found".
func (h *Host) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	t, ok := tools[path.Base(args[0])]
	if !ok {
		fmt.Fprintf(hc.Stderr, "sh: %s: command not found\n", args[0])
		return interp.ExitStatus(127)
	}
	if rc := t(h, ctx, hc, args[1:]); rc != 0 {
		return interp.ExitStatus(uint8(rc))
	}
	return nil
}

var (
	binOnce sync.Once
	bin     string
)

// binDir is a folder of empty executables named after the tools, the PATH of every simulated
// shell: the interpreter's `command -v` looks there.
func binDir() string {
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kupgrade-sim-bin-")
		if err != nil {
			panic(fmt.Sprintf("sim: %v", err))
		}
		for name := range tools {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/false\n"), 0o755); err != nil {
				panic(fmt.Sprintf("sim: %v", err))
			}
		}
		bin = dir
	})
	return bin
}

// env sets variables for the command.
func (h *Host) env(ctx context.Context, hc interp.HandlerContext, args []string) int {
	var vars []string
	for len(args) > 0 && strings.Contains(args[0], "=") {
		vars, args = append(vars, args[0]), args[1:]
	}
	return h.call(ctx, hc, args, vars)
}

func (h *Host) setsid(ctx context.Context, hc interp.HandlerContext, args []string) int {
	return h.call(ctx, hc, args, nil)
}

// call runs args as a command with extra environment variables.
func (h *Host) call(ctx context.Context, hc interp.HandlerContext, args, vars []string) int {
	if len(args) == 0 {
		return 0
	}
	if len(vars) > 0 && (path.Base(args[0]) == "sh" || path.Base(args[0]) == "bash") {
		return h.shell(ctx, hc, args[1:], vars)
	}
	t, ok := tools[path.Base(args[0])]
	if !ok {
		fmt.Fprintf(hc.Stderr, "sh: %s: command not found\n", args[0])
		return 127
	}
	return t(h, ctx, hc, args[1:])
}

func (h *Host) sh(ctx context.Context, hc interp.HandlerContext, args []string) int {
	return h.shell(ctx, hc, args, nil)
}

// shell is `sh -c SCRIPT NAME ARGS...`. Two scripts of kupgrade's runner are run natively, for
// the interpreter has no file descriptors above 2 nor signals: sudo's signal guard (it runs its
// $1) and the host fence (fence.go).
func (h *Host) shell(ctx context.Context, hc interp.HandlerContext, args, vars []string) int {
	if len(args) < 2 || args[0] != "-c" {
		fmt.Fprintf(hc.Stderr, "sh: only sh -c SCRIPT is simulated, not %q\n", args)
		return 2
	}
	script, params := args[1], args[2:]
	if len(params) > 0 {
		params = params[1:] // $0
	}
	switch {
	case strings.HasPrefix(script, "z() {") && len(params) == 1:
		return h.Run(ctx, params[0], nil, vars, hc.Stdout, hc.Stderr)
	case strings.HasPrefix(script, fenceScriptStart):
		return h.fenced(ctx, hc, params)
	}
	return h.Run(ctx, script, params, vars, hc.Stdout, hc.Stderr)
}

func date(_ *Host, _ context.Context, hc interp.HandlerContext, args []string) int {
	now := time.Now().UTC()
	f := "Thu Jan  2 15:04:05 UTC 2006"
	for _, a := range args {
		switch {
		case a == "+%s":
			fmt.Fprintln(hc.Stdout, now.Unix())
			return 0
		case strings.HasPrefix(a, "+"):
			f = strings.NewReplacer("%Y", "2006", "%m", "01", "%d", "02", "%H", "15", "%M", "04", "%S", "05", "%F", "2006-01-02", "%T", "15:04:05").Replace(a[1:])
		}
	}
	fmt.Fprintln(hc.Stdout, now.Format(f))
	return 0
}

func sleep(_ *Host, ctx context.Context, _ interp.HandlerContext, args []string) int {
	var s float64
	if len(args) > 0 {
		fmt.Sscan(args[0], &s)
	}
	select {
	case <-ctx.Done():
		return 130
	case <-time.After(time.Duration(s * float64(time.Second))):
	}
	return 0
}

func (h *Host) sha256sum(ctx context.Context, hc interp.HandlerContext, args []string) int {
	rc := 0
	for _, a := range args {
		data, ok := h.File(abs(ctx, a))
		if !ok {
			fmt.Fprintf(hc.Stderr, "sha256sum: %s: No such file or directory\n", a)
			rc = 1
			continue
		}
		fmt.Fprintf(hc.Stdout, "%x  %s\n", sha256.Sum256([]byte(data)), a)
	}
	return rc
}
