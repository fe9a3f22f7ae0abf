package main

import (
	"github.com/kupgrade/kupgrade/internal/shellword"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/alecthomas/kong"
)

// hintFlags are the global flags that choose what a command works on: a printed command that
// left one out would act on another database, inventory or cluster than the one just used.
var hintFlags = []string{"db", "db-file", "inventory", "cluster"}

// flagsGiven returns which of hintFlags were typed on the command line (kong records a flag in
// the parse path only when the command line set it, not when the environment or a default did).
func flagsGiven(kctx *kong.Context) map[string]bool {
	given := map[string]bool{}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved {
			given[p.Flag.Name] = true
		}
	}
	return given
}

// command renders cmd, a "kupgrade ..." command line, as the operator must type it next: with the
// --db, --db-file, -i and --cluster they typed on this command line appended (kong takes global
// flags after the command's own). A value that came from the environment is left out: the same
// environment gives it to the next command too. A DSN's password is masked, as everywhere. Files
// are named by absolute path (kong makes path flags absolute: a path typed absolute stays as
// typed), so that a command pasted from a ticket or a chat, run from another folder, names the
// same file.
func (a *app) command(cmd string) string { return a.commandWith(cmd, hintFlags) }

// commandWith is command with only the flags names of hintFlags.
func (a *app) commandWith(cmd string, names []string) string {
	if cmd == "" || !strings.HasPrefix(cmd, "kupgrade ") {
		return cmd
	}
	var b strings.Builder
	b.WriteString(cmd)
	for _, name := range names {
		if !a.given[name] || (name == "inventory" && len(a.g.Inventory) == 0) {
			continue
		}
		var v string
		switch name {
		case "db":
			v = a.redact(a.g.DB)
			if d, err := a.dsn(); err == nil && d.Driver == "sqlite" {
				d.Path = absPath(d.Path)
				v = d.Redacted()
			}
		case "db-file":
			v = a.g.DBFile
		case "inventory":
			for _, i := range a.g.Inventory[:max(0, len(a.g.Inventory)-1)] {
				b.WriteString(" --inventory " + shellword.Quote(i))
			}
			v = a.g.Inventory[len(a.g.Inventory)-1]
		case "cluster":
			v = a.g.Cluster
		}
		b.WriteString(" --" + name + " " + shellword.Quote(v))
	}
	return b.String()
}

var quotedCommand = regexp.MustCompile("`kupgrade [^`]*`")

// commands renders, with command, every `kupgrade ...` command quoted in text (a refusal names
// the way out that way).
func (a *app) commands(text string) string {
	if len(a.given) == 0 {
		return text
	}
	return quotedCommand.ReplaceAllStringFunc(text, func(q string) string {
		return "`" + a.command(strings.Trim(q, "`")) + "`"
	})
}

// relPath is p (kong makes path flags absolute) relative to the current directory when it can
// be, for messages that name a file for reading, not for a command to paste.
func relPath(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil {
		return rel
	}
	return p
}
