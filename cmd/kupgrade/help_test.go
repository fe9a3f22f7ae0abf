package main

import (
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// grammar is kupgrade's kong model, as Main builds it (examples included).
func grammar(t *testing.T) *kong.Application {
	t.Helper()
	var cli CLI
	p, err := kong.New(&cli, kong.Name("kupgrade"))
	if err != nil {
		t.Fatal(err)
	}
	describe(p.Model)
	return p.Model
}

// Every command's --help ends with examples, and every example runs a command of the grammar.
func TestEveryCommandHasExamples(t *testing.T) {
	for _, n := range commands(grammar(t).Node, false) {
		if len(n.Children) > 0 { // a noun: its verbs have the examples
			continue
		}
		code, out, _ := run(t, append(strings.Fields(n.Path()), "--help")...)
		if code != 0 || !strings.Contains(out, "Examples:\n\n    kupgrade ") && !strings.Contains(out, "Examples:\n\n    source") {
			t.Errorf("kupgrade %s --help (exit %d) shows no examples:\n%s", n.Path(), code, out)
		}
	}
}

// The man page has a section for every visible command, with its examples, and leaves the
// hidden flags out.
func TestManListsEveryCommand(t *testing.T) {
	code, out, _ := run(t, "man")
	if code != 0 || !strings.HasPrefix(out, ".TH KUPGRADE 1") {
		t.Fatalf("kupgrade man: exit %d, output starts %.40q", code, out)
	}
	for _, n := range commands(grammar(t).Node, false) {
		head := `.SS "kupgrade ` + roffEscape(n.Path())
		if !strings.Contains(out, head) {
			t.Errorf("man page has no %s", head)
		}
	}
	for _, want := range []string{".SH STARLINGX NAMES", "kube\\-upgrade\\-start", ".SH EXIT STATUS", "kupgrade host list \\-\\-refresh"} {
		if !strings.Contains(out, want) {
			t.Errorf("man page lacks %q", want)
		}
	}
	if strings.Contains(out, "clock\\-offset") {
		t.Error("man page shows the hidden --clock-offset")
	}
}

// --help ends with every StarlingX name and the command it runs.
func TestHelpListsStarlingXNames(t *testing.T) {
	code, out, _ := run(t, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	_, section, ok := strings.Cut(out, "StarlingX names")
	if !ok {
		t.Fatalf("--help has no StarlingX section:\n%s", out)
	}
	n := 0
	for _, c := range commands(grammar(t).Node, true) {
		if target, ok := aliasOf(c); ok {
			n++
			if !strings.Contains(section, c.Name+" ") || !strings.Contains(section, target) {
				t.Errorf("StarlingX section lacks %s -> %s", c.Name, target)
			}
		}
	}
	if n < 16 {
		t.Errorf("found %d StarlingX aliases, want at least 16", n)
	}
}

func TestVersionFlagAndCommand(t *testing.T) {
	code1, flag, _ := run(t, "--version")
	code2, cmd, _ := run(t, "version")
	if code1 != 0 || code2 != 0 || flag != cmd || !strings.Contains(flag, "(commit "+commit) {
		t.Errorf("--version = %q (exit %d), version = %q (exit %d)", flag, code1, cmd, code2)
	}
}

func TestRoffEscape(t *testing.T) {
	if got, want := roffEscape(".x\n'y\na-b\\c"), "\\&.x\n\\&'y\na\\-b\\ec"; got != want {
		t.Errorf("roffEscape = %q, want %q", got, want)
	}
}
