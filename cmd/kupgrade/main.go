package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kong"
)

// Set by the Makefile through -ldflags.
var (
	version = "dev"
	commit  = "none"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// kongExit carries kong's requested exit status (after --help, or a parse error) out of Parse.
type kongExit struct{ code int }

// Main runs kupgrade with args and returns its exit status (CLI.md). Tests call it directly.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	var cli CLI
	parser, err := kong.New(&cli,
		kong.Name("kupgrade"),
		kong.Description("Upgrade kubeadm-based Kubernetes clusters over SSH, and never strand an upgrade."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { panic(kongExit{c}) }),
		kong.UsageOnError(),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		fmt.Fprintf(stderr, "kupgrade: %v\n", err)
		return exitBadInput
	}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code = e.code
			if code == 1 { // kong's parse errors
				code = exitBadInput
			}
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "kupgrade: %v\n", err)
		return exitBadInput
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := newApp(&cli.Globals, stdin, stdout, stderr)
	defer a.close()
	kctx.BindTo(ctx, (*context.Context)(nil))
	err = kctx.Run(a)
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "kupgrade: interrupted: %s\n", a.redact(err.Error()))
		return exitInterrupted
	}
	return a.report(err)
}
