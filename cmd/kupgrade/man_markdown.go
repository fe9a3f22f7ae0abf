package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// cliDocHeader opens docs/cli.md; the file is this output, so it says how to make it again.
const cliDocHeader = `# kupgrade command reference

<!-- Generated from the command grammar by ` + "`kupgrade man --markdown`" + ` (make docs). Do not edit:
     change cmd/kupgrade and run make docs; TestCLIDocIsCurrent fails until you do. -->

`

// writeMarkdown writes the man page as Markdown (docs/cli.md): the same grammar, flags,
// examples and closing sections as writeMan, without the version, so the file changes only
// when the grammar does.
func writeMarkdown(w io.Writer, app *kong.Application) {
	fmt.Fprint(w, cliDocHeader)
	fmt.Fprintf(w, "kupgrade: %s\n\n", mdEscape(app.Help))
	fmt.Fprint(w, "```\nkupgrade [global flags] COMMAND [flags] [arguments]\n```\n\n")
	fmt.Fprint(w, "## Global flags\n\nGlobal flags may come before or after the command.\n\n")
	writeMarkdownFlags(w, app.Node.Flags)
	fmt.Fprint(w, "## Commands\n\n")
	for _, n := range commands(app.Node, false) {
		fmt.Fprintf(w, "- `kupgrade %s`: %s\n", n.Path(), mdEscape(n.Help))
	}
	fmt.Fprintln(w)
	for _, n := range commands(app.Node, false) {
		writeMarkdownCommand(w, n)
	}
	var sx strings.Builder
	writeStarlingX(&sx, app)
	fmt.Fprintf(w, "## StarlingX names\n\n```\n%s```\n\n", sx.String())
	fmt.Fprintf(w, "## Output\n\n```\n%s\n```\n\n", outputText)
	fmt.Fprintf(w, "## Exit status\n\n```\n%s\n```\n\n", exitStatusText)
	fmt.Fprintf(w, "## Environment\n\n```\n%s\n```\n", environmentText(app))
}

func writeMarkdownCommand(w io.Writer, n *kong.Node) {
	fmt.Fprintf(w, "### kupgrade %s\n\n```\nkupgrade %s\n```\n\n%s\n\n", n.Path(), n.Summary(), mdEscape(n.Help))
	if len(n.Positional) > 0 {
		fmt.Fprint(w, "Arguments:\n\n")
		for _, p := range n.Positional {
			fmt.Fprintf(w, "- `%s`: %s\n", p.Summary(), mdEscape(p.Help))
		}
		fmt.Fprintln(w)
	}
	if visibleFlags(n.Flags) > 0 {
		fmt.Fprint(w, "Flags:\n\n")
		writeMarkdownFlags(w, n.Flags)
	}
	if ex, ok := strings.CutPrefix(n.Detail, "Examples:\n\n"); ok {
		fmt.Fprintf(w, "Examples:\n\n```\n%s\n```\n\n", strings.ReplaceAll(strings.TrimPrefix(ex, "  "), "\n  ", "\n"))
	} else if n.Detail != "" {
		fmt.Fprintf(w, "```\n%s\n```\n\n", n.Detail)
	}
}

func writeMarkdownFlags(w io.Writer, flags []*kong.Flag) {
	for _, f := range flags {
		if f.Hidden {
			continue
		}
		name := "`" + f.Summary() + "`"
		if f.Short != 0 {
			name = fmt.Sprintf("`-%c`, %s", f.Short, name)
		}
		var env []string
		for _, e := range f.Envs {
			env = append(env, "`"+e+"`")
		}
		if len(env) > 0 {
			name += " (env " + strings.Join(env, ", ") + ")"
		}
		fmt.Fprintf(w, "- %s: %s\n", name, mdEscape(f.Help))
	}
	fmt.Fprintln(w)
}

func visibleFlags(flags []*kong.Flag) int {
	n := 0
	for _, f := range flags {
		if !f.Hidden {
			n++
		}
	}
	return n
}

// mdEscape makes help text safe as Markdown prose: outside `code`, the characters that would
// start emphasis or an HTML tag are escaped.
func mdEscape(s string) string {
	parts := strings.Split(s, "`")
	esc := strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "<", `\<`, ">", `\>`, "|", `\|`)
	for i := 0; i < len(parts); i += 2 {
		parts[i] = esc.Replace(parts[i])
	}
	return strings.Join(parts, "`")
}

const outputText = `-o table (the default) is for a person: long operations print a line per task result, then
a recap. -o json is for programs, with stable keys and RFC 3339 times in UTC:
  upgrade show    one object: uuid, cluster, from_version, to_version, state,
                  state_entered_at, created_at, updated_at, recovery_attempts, lease
                  (null, or owner, operation, heartbeat_at, expires_at)
  host list       an array of objects: id, hostname, personality, target_version,
                  control_plane_version, kubelet_version, status, last_failure
  streams         play, host upgrade, upgrade run, the steps and watch print JSON Lines,
                  one event a line, always with time, event, host and task; event is one of
                  play_start, task_start, task_ok, task_changed, task_failed, task_skipped,
                  host_unreachable, state_changed, play_recap, audit, step_start (upgrade
                  run: "step 5/9 second-master controller-1"); a task run with diff
                  (play --diff, the diff keyword) has its module's "diff" as Ansible's JSON
                  callback gives it
  errors          a command run with -o json ends a failure with an "error" event on stdout,
                  the last line of its stream (the message, the exit status; a failed step's
                  step, host, state, finding and retry): stdout is one stream of JSON
Diagnostics (--log-level, --log-format) go to stderr, never to stdout; with --log-format json
they are JSON too, so that 2>&1 is one stream of JSON lines.`
