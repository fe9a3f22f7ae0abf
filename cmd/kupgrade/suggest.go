package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/kupgrade/kupgrade/internal/typo"
)

var (
	// unexpectedArg is kong's refusal of a word that names no command.
	unexpectedArg = regexp.MustCompile(`^unexpected argument (\S+)$`)
	// enumArg is kong's refusal of a value outside an enum: `... must be one of "a","b" but got "x"`.
	enumArg = regexp.MustCompile(`must be one of ((?:"[^"]*",?)+) but got "([^"]*)"$`)
)

// suggest adds a "did you mean" to a parse error kong gave none: a mistyped hidden command
// (StarlingX's kube-* aliases), StarlingX's `system` typed before one, and an argument outside
// its choices (host upgrade HOST kubelt). Other messages come back as they are, but for a
// flag kong names twice.
func suggest(msg string, app *kong.Application, args []string) string {
	if flag, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(rest, flag+" ") {
		msg = rest // kong prefixes a value's refusal with its flag, which the refusal names already
	}
	if strings.Contains(msg, "did you mean") {
		return msg
	}
	if m := unexpectedArg.FindStringSubmatch(msg); m != nil {
		return msg + didYouMean(m[1], commandNames(app), args)
	}
	if m := enumArg.FindStringSubmatch(msg); m != nil {
		choices := strings.Split(strings.ReplaceAll(m[1], `"`, ""), ",")
		if c := typo.Closest(m[2], choices); c != "" {
			return fmt.Sprintf("%s, did you mean %q?", msg, c)
		}
	}
	return msg
}

// didYouMean is `, did you mean "NAME"?` for word among names; StarlingX's `system` before an
// alias is suggested without it.
func didYouMean(word string, names, args []string) string {
	if i := slices.Index(args, word); word == "system" && i >= 0 && i+1 < len(args) {
		if c := typo.Closest(args[i+1], names); c != "" {
			return fmt.Sprintf(", did you mean %q? (StarlingX's `system kube-*` commands are kupgrade's hidden kube-* aliases)", "kupgrade "+c)
		}
	}
	if c := typo.Closest(word, names); c != "" {
		return fmt.Sprintf(", did you mean %q?", c)
	}
	return ""
}

// commandNames are the names of every command, hidden ones (the aliases) included.
func commandNames(app *kong.Application) []string {
	var names []string
	for _, n := range commands(app.Node, true) {
		names = append(names, n.Name)
	}
	return names
}
