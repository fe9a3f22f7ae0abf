package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/alecthomas/kong"
	"github.com/willabides/kongplete"
)

// Shell completion is kongplete's: the shell runs kupgrade itself with the line typed so far in
// COMP_LINE, and kongplete answers from the kong grammar, so completion can never fall behind the
// commands and flags. The scripts below only hook kupgrade into each shell (as kongplete's own
// installer writes them, but for the shell named rather than the login shell). The zsh one is a
// completion function: saved as _kupgrade in $fpath (where packages put it) compinit loads it on
// the first TAB; sourced, it registers itself with compdef.
var completionScripts = map[string]string{
	"bash": "complete -C %[1]q %[2]s\n",
	"zsh": `#compdef %[2]s
_%[2]s() {
    local -a c
    c=(${(f)"$(COMP_LINE="${(j: :)words[1,CURRENT]}" %[1]q 2>/dev/null)"})
    compadd -- $c
}
if [ "$funcstack[1]" = "_%[2]s" ]; then _%[2]s "$@"; else compdef _%[2]s %[2]s; fi
`,
	"fish": `function __complete_%[2]s
    set -lx COMP_LINE (commandline -cp)
    test -z (commandline -ct)
    and set COMP_LINE "$COMP_LINE "
    %[1]q
end
complete -f -c %[2]s -a "(__complete_%[2]s)"
`,
}

type completionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"bash, zsh or fish."`
	Bin   string `placeholder:"PATH" help:"The kupgrade the script runs (default: this one's absolute path; packages give /usr/bin/kupgrade)."`
}

func (c *completionCmd) Run(a *app) error {
	if c.Bin != "" {
		_, err := fmt.Fprintf(a.stdout, completionScripts[c.Shell], c.Bin, "kupgrade")
		return err
	}
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find kupgrade's own path for the completion script: %w", err)
	}
	if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	_, err = fmt.Fprintf(a.stdout, completionScripts[c.Shell], bin, "kupgrade")
	return err
}

// completing answers a shell's completion request (COMP_LINE set) and reports whether it did;
// then kupgrade must print nothing else and exit 0.
func completing(parser *kong.Kong) bool {
	if os.Getenv("COMP_LINE") == "" {
		return false
	}
	kongplete.Complete(parser, predictors(),
		kongplete.WithExitFunc(func(int) {}),
		kongplete.WithErrorHandler(func(err error) { fmt.Fprintf(parser.Stderr, "kupgrade: completion: %v\n", err) }))
	return true
}
