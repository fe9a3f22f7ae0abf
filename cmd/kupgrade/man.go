package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// manCmd prints kupgrade(1), generated from the kong grammar: every visible command with its
// arguments, flags and examples, then the sections the grammar does not carry. roff is written
// here rather than through a generator library: the ones on offer list hidden flags and lose the
// examples' line breaks.
type manCmd struct {
	Markdown bool `help:"Print it as Markdown instead (docs/cli.md is this output: make docs)."`
}

func (c *manCmd) Run(kctx *kong.Context, a *app) error {
	if c.Markdown {
		writeMarkdown(a.stdout, kctx.Model)
		return nil
	}
	writeMan(a.stdout, kctx.Model)
	return nil
}

func writeMan(w io.Writer, app *kong.Application) {
	fmt.Fprintf(w, ".TH KUPGRADE 1 \"\" \"kupgrade %s\" \"User Commands\"\n", roffEscape(version))
	fmt.Fprintf(w, ".SH NAME\nkupgrade \\- %s\n", roffEscape(app.Help))
	fmt.Fprint(w, ".SH SYNOPSIS\n.B kupgrade\n[\\fIglobal flags\\fR] \\fICOMMAND\\fR [\\fIflags\\fR] [\\fIarguments\\fR]\n")
	fmt.Fprint(w, ".SH GLOBAL FLAGS\nGlobal flags may come before or after the command.\n")
	writeManFlags(w, app.Node.Flags)
	fmt.Fprint(w, ".SH COMMANDS\n")
	for _, n := range commands(app.Node, false) {
		writeManCommand(w, n)
	}
	var sx strings.Builder
	writeStarlingX(&sx, app)
	fmt.Fprintf(w, ".SH STARLINGX NAMES\n.nf\n%s.fi\n", roffEscape(sx.String()))
	fmt.Fprintf(w, ".SH OUTPUT\n.nf\n%s\n.fi\n", roffEscape(outputText))
	fmt.Fprintf(w, ".SH EXIT STATUS\n.nf\n%s\n.fi\n", roffEscape(exitStatusText))
	fmt.Fprintf(w, ".SH ENVIRONMENT\n.nf\n%s\n.fi\n", roffEscape(environmentText(app)))
	fmt.Fprintf(w, ".SH SEE ALSO\n%s\n", roffEscape(seeAlso))
}

func writeManCommand(w io.Writer, n *kong.Node) {
	fmt.Fprintf(w, ".SS \"kupgrade %s\"\n%s\n", roffEscape(n.Summary()), roffEscape(n.Help))
	for _, p := range n.Positional {
		fmt.Fprintf(w, ".TP\n\\fI%s\\fR\n%s\n", roffEscape(p.Summary()), roffEscape(p.Help))
	}
	writeManFlags(w, n.Flags)
	if n.Detail != "" {
		fmt.Fprintf(w, ".PP\n.nf\n%s\n.fi\n", roffEscape(n.Detail))
	}
}

func writeManFlags(w io.Writer, flags []*kong.Flag) {
	for _, f := range flags {
		if f.Hidden {
			continue
		}
		name := f.Summary()
		if f.Short != 0 {
			name = fmt.Sprintf("-%c, %s", f.Short, name)
		}
		fmt.Fprintf(w, ".TP\n\\fB%s\\fR\n%s\n", roffEscape(name), roffEscape(f.Help))
	}
}

// roffEscape makes s safe as roff text: backslashes and hyphens escaped, and no line starting
// with a control character.
func roffEscape(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

const seeAlso = "In kupgrade's sources: docs/cli.md (this page as Markdown), docs/operator-guide.md " +
	"(prerequisites, a real cluster, recovery) and docs/states.md (the state machine)."

const exitStatusText = `0    done (also: nothing to do; --help)
1    the operation ran and failed; the state now says *-failed
2    bad input: flags, inventory, playbook, DSN
3    refused by a pre-check or an invalid transition, or no such upgrade; nothing changed
4    conflict: another operation holds the lease, the state changed underneath,
     or the database's write lock stayed held
5    unreachable: SSH connection, authentication or host-key verification failed
6    the operation ran but its outcome could not be recorded
130  interrupted; the in-flight operation was recorded as failed before exiting`

// environmentText lists the variables kupgrade reads: each visible global flag's, from the grammar,
// then those that no flag stands for.
func environmentText(app *kong.Application) string {
	var b strings.Builder
	for _, f := range app.Node.Flags {
		if f.Hidden {
			continue
		}
		for _, env := range f.Envs {
			fmt.Fprintf(&b, "%-24s --%s\n", env, f.Name)
		}
	}
	for _, n := range commands(app.Node, false) {
		for _, f := range n.Flags {
			for _, env := range f.Envs {
				fmt.Fprintf(&b, "%-30s --%s of kupgrade %s\n", env, f.Name, n.Path())
			}
		}
	}
	b.WriteString("KUPGRADE_LOG_DIR         folder of the run logs (default: runs/ in the state folder)\n")
	b.WriteString("XDG_STATE_HOME           users but root keep their state in $XDG_STATE_HOME/kupgrade (~/.local/state/kupgrade)\n")
	b.WriteString("KUPGRADE_SSH_PASSPHRASE  passphrase of an encrypted private key\n")
	b.WriteString("SSH_AUTH_SOCK            ssh-agent to take keys from")
	return b.String()
}
