package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/alecthomas/kong"
)

// Set by the Makefile through -ldflags. A build without them (go build, go install) still names
// its commit: Go records it in the binary when it builds from a git checkout.
var (
	version = "dev"
	commit  = "none"
)

func init() {
	if info, ok := debug.ReadBuildInfo(); ok && commit == "none" {
		commit = vcsCommit(info)
	}
}

// vcsCommit is the short commit Go recorded in the binary, -dirty when the tree had changes;
// "none" when it recorded none (a build outside git, or a test binary).
func vcsCommit(info *debug.BuildInfo) string {
	rev, dirty := "none", ""
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 7:
			rev = s.Value[:7]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "none" {
		return rev
	}
	return rev + dirty
}

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs kupgrade with args and returns its exit status (docs/cli.md). Tests call it directly;
// main alone calls os.Exit, so every status, kong's included, leaves through one path.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cli CLI
	kctx, code, done := parse(&cli, args, stdout, stderr)
	if done {
		return code
	}
	ctx, stop := interruptible()
	defer stop()
	a := newApp(&cli.Globals, stdin, stdout, stderr)
	defer a.close()
	a.given, a.cmdName = flagsGiven(kctx), kctx.Command()
	kctx.BindTo(ctx, (*context.Context)(nil))
	err := a.useVault()
	if err == nil {
		err = a.explicitInventory(kctx.Command())
	}
	if err == nil {
		err = a.openNotifier()
	}
	if err == nil {
		err = a.clusterAgrees(kctx.Command())
	}
	if err == nil {
		err = kctx.Run(a)
	}
	a.endRunLog(err)
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		a.printError("interrupted: "+a.redact(err.Error()), exitInterrupted)
		return exitInterrupted
	}
	return a.report(err)
}

// parse parses args into cli. done is true when kupgrade must stop with code: --help was
// answered (0), or the command line is wrong (2, the message on stderr).
func parse(cli *CLI, args []string, stdout, stderr io.Writer) (kctx *kong.Context, code int, done bool) {
	// kong asks to exit after printing help; that request is recorded here instead of ending
	// the process, and wins over whatever the rest of the parse finds (a missing argument
	// after --help is no error).
	exit := -1
	parser, err := kong.New(cli,
		kong.Name("kupgrade"),
		kong.Description("Upgrade kubeadm-based Kubernetes clusters over SSH, and never strand an upgrade."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) {
			if exit < 0 {
				exit = c
			}
		}),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Help(helpPrinter),
	)
	if err != nil { // the grammar itself is wrong: a bug, not the user's input
		fmt.Fprintf(stderr, "kupgrade: %v\n", err)
		return nil, exitFailed, true
	}
	describe(parser.Model)
	listHosts(parser.Model, args)
	if completing(parser) {
		return nil, exitOK, true
	}
	kctx, err = parser.Parse(args)
	switch {
	case exit == 0:
		return nil, exitOK, true
	case exit > 0 || err != nil:
		msg := "the command line is wrong"
		if err != nil {
			msg = suggest(err.Error(), parser.Model, args)
		}
		fmt.Fprintf(stderr, "kupgrade: %s (see kupgrade --help)\n", redactArgs(msg, args))
		return nil, exitBadInput, true
	}
	return kctx, exitOK, false
}
