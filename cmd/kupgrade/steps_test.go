package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/kupgrade/kupgrade/state"
)

// byName reports whether command n runs the step its name spells (stepOf), rather than a
// step of its own.
func byName(n *kong.Node) bool {
	typ := n.Target.Type()
	return typ == reflect.TypeFor[stepCmd]() || typ == reflect.TypeFor[hostStepCmd]()
}

func parseCommand(t *testing.T, parser *kong.Kong, args []string) *kong.Node {
	t.Helper()
	kctx, err := parser.Parse(args)
	if err != nil {
		t.Errorf("kupgrade %s: %v", strings.Join(args, " "), err)
		return nil
	}
	return kctx.Selected()
}

// TestGrammarRunsEveryStep: every step of the step table is a command of the grammar, under the
// words of its command and under its StarlingX alias (a hidden top-level command of the same
// type, taking the same arguments); and every command that runs a step by its name names
// exactly one step, the right one.
func TestGrammarRunsEveryStep(t *testing.T) {
	parser, err := kong.New(&CLI{}, kong.Name("kupgrade"), kong.Exit(func(c int) { t.Fatalf("kong exited %d", c) }))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range state.Steps() {
		args := strings.Fields(strings.ReplaceAll(strings.TrimPrefix(st.Command, "kupgrade "), "HOST", "h0"))
		cmd := parseCommand(t, parser, args)
		if cmd == nil {
			continue
		}
		if cmd.Hidden {
			t.Errorf("%s: %q is hidden", st.Name, cmd.Path())
		}
		alias := parseCommand(t, parser, append([]string{st.Alias}, args[len(strings.Fields(cmd.Path())):]...))
		if alias == nil {
			continue
		}
		if !alias.Hidden || alias.Parent != parser.Model.Node || alias.Target.Type() != cmd.Target.Type() {
			t.Errorf("%s: alias %q is not a hidden top-level %s", st.Name, alias.Path(), cmd.Target.Type())
		}
		for _, n := range []*kong.Node{cmd, alias} {
			if !byName(n) {
				continue
			}
			if got, err := stepOf(n); err != nil || got.Name != st.Name {
				t.Errorf("%q runs step %q (%v), want %s", n.Path(), got.Name, err, st.Name)
			}
		}
	}
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		if n.Type == kong.CommandNode && byName(n) {
			if _, err := stepOf(n); err != nil {
				t.Error(err)
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(parser.Model.Node)
}
