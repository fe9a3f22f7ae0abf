package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/alecthomas/kong"
)

// examples are the lines of each command's "Examples" section in --help and the man page, by the
// command's path. Every visible command has some (TestEveryCommandHasExamples); a StarlingX alias
// shows those of the command it names.
var examples = map[string][]string{
	"upgrade start":           {"kupgrade upgrade start v1.30.1", "kupgrade upgrade start v1.30.1 --from-version v1.29.4", "kupgrade upgrade start v1.31.0 --ignore-version-checks"},
	"upgrade show":            {"kupgrade upgrade show", "kupgrade upgrade show -o json --db sqlite:/var/lib/kupgrade/kupgrade.db"},
	"upgrade plan":            {"kupgrade upgrade plan", "kupgrade upgrade plan v1.30.1 -o json"},
	"upgrade list":            {"kupgrade upgrade list"},
	"upgrade history":         {"kupgrade upgrade history --cluster lab --since 2h"},
	"upgrade logs":            {"kupgrade upgrade logs", "kupgrade upgrade logs --last --cluster lab"},
	"upgrade versions":        {"kupgrade upgrade versions", "kupgrade kube-version-list -o json"},
	"upgrade download-images": {"kupgrade upgrade download-images"},
	"upgrade pre-app-update":  {"kupgrade upgrade pre-app-update"},
	"upgrade networking":      {"kupgrade upgrade networking"},
	"upgrade storage":         {"kupgrade upgrade storage"},
	"upgrade post-app-update": {"kupgrade upgrade post-app-update"},
	"upgrade next-hop":        {"kupgrade upgrade next-hop   # v1.29 -> v1.31: after the control plane of v1.30"},
	"upgrade complete":        {"kupgrade upgrade complete"},
	"upgrade abort":           {"kupgrade upgrade abort"},
	"upgrade delete":          {"kupgrade upgrade delete"},
	"upgrade failed":          {"kupgrade upgrade failed --reason 'kubeadm hung, process killed'", "kupgrade upgrade failed --force   # another kupgrade's live lease, its process known gone"},
	"upgrade run":             {"kupgrade upgrade run", "kupgrade upgrade run --until upgraded-first-master", "kupgrade upgrade run --retries 1 --worker-batch 3"},
	"host list":               {"kupgrade host list", "kupgrade host list --refresh -o json"},
	"host upgrade":            {"kupgrade host upgrade controller-0 control-plane", "kupgrade host upgrade 3 kubelet          # host 3 of 'host list'", "kupgrade host upgrade worker-0 kubelet --rerun"},
	"host cordon":             {"kupgrade host cordon controller-0"},
	"host uncordon":           {"kupgrade host uncordon controller-0"},
	"recover":                 {"kupgrade recover --dry-run", "kupgrade recover", "kupgrade recover --no-probe   # the host is down for good"},
	"watch":                   {"kupgrade watch --once", "kupgrade watch --listen :9100 --interval 30s"},
	"fleet run": {"kupgrade fleet run --to v1.30.1 --inventories /etc/kupgrade/fleet --max-parallel 20",
		"kupgrade --db mysql://kupgrade@db:3306/kupgrade fleet run --to v1.30.1 -i east.yml -i west.yml --canary 1 --retries 1"},
	"fleet show":     {"kupgrade fleet show", "kupgrade fleet show --fleet east -o json"},
	"play":           {"kupgrade play site.yml --limit workers --check", "kupgrade play site.yml -e version=v1.30.1 --tags kubelet"},
	"inventory list": {"kupgrade inventory list", "kupgrade -i lab.yml inventory list --limit controllers -o json"},
	"version":        {"kupgrade version", "kupgrade --version"},
	"completion":     {"source <(kupgrade completion bash)", "kupgrade completion zsh > \"${fpath[1]}/_kupgrade\"", "kupgrade completion fish > ~/.config/fish/completions/kupgrade.fish"},
	"man":            {"kupgrade man > kupgrade.1 && man ./kupgrade.1"},
}

// describe adds each command's examples to its detailed help, and to an alias those of the
// command it names. Commands added elsewhere without examples are left as they are.
func describe(app *kong.Application) {
	listStates(app)
	for _, n := range commands(app.Node, true) {
		path := n.Path()
		if target, ok := aliasOf(n); ok {
			path = target
		}
		if ex := examples[path]; len(ex) > 0 && n.Detail == "" {
			n.Detail = "Examples:\n\n  " + strings.Join(ex, "\n  ")
		}
	}
}

// commands returns every command below n, depth first; hidden ones too when hidden.
func commands(n *kong.Node, hidden bool) []*kong.Node {
	var out []*kong.Node
	for _, c := range n.Children {
		if c.Type != kong.CommandNode || (c.Hidden && !hidden) {
			continue
		}
		out = append(out, c)
		out = append(out, commands(c, hidden)...)
	}
	return out
}

// aliasOf returns the command a StarlingX name stands for, read from its help ("Alias of
// 'upgrade show'."), so that cli.go stays the one list of the aliases.
func aliasOf(n *kong.Node) (string, bool) {
	rest, ok := strings.CutPrefix(n.Help, "Alias of '")
	if !ok || !n.Hidden {
		return "", false
	}
	target, _, ok := strings.Cut(rest, "'")
	return target, ok
}

// writeStarlingX writes the StarlingX names (`system kube-*`) and the kupgrade command each one
// runs: they are hidden from the command list, so this is where an operator finds them.
func writeStarlingX(w io.Writer, app *kong.Application) {
	fmt.Fprintln(w, "StarlingX names (each runs the kupgrade command beside it, with the same flags):")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, n := range commands(app.Node, true) {
		if target, ok := aliasOf(n); ok {
			fmt.Fprintf(tw, "  %s\t%s\n", n.Name, target)
		}
	}
	tw.Flush()
}

// helpPrinter is kong's help, with the StarlingX names after the root command list.
func helpPrinter(opts kong.HelpOptions, ctx *kong.Context) error {
	if err := kong.DefaultHelpPrinter(opts, ctx); err != nil {
		return err
	}
	if ctx.Selected() == nil && !opts.Summary {
		fmt.Fprintln(ctx.Stdout)
		writeStarlingX(ctx.Stdout, ctx.Model)
	}
	return nil
}

// versionLine is what `kupgrade version` and `kupgrade --version` print.
func versionLine() string {
	return fmt.Sprintf("kupgrade %s (commit %s, %s)", version, commit, runtime.Version())
}

// versionFlag is --version: the version line, then exit 0, whatever else the line holds.
type versionFlag bool

func (versionFlag) BeforeReset(app *kong.Kong) error {
	fmt.Fprintln(app.Stdout, versionLine())
	app.Exit(exitOK)
	return nil
}
