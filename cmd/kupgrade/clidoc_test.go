package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cliDoc is docs/cli.md as committed.
func cliDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash("../../docs/cli.md"))
	if err != nil {
		t.Fatalf("read docs/cli.md: %v (run make docs)", err)
	}
	return string(b)
}

// docs/cli.md is exactly what `kupgrade man --markdown` prints for the grammar of this tree: a
// flag, command, help text or example changed without `make docs` fails here.
func TestCLIDocIsCurrent(t *testing.T) {
	code, out, stderr := run(t, "man", "--markdown")
	if code != 0 {
		t.Fatalf("kupgrade man --markdown: exit %d: %s", code, stderr)
	}
	if doc := cliDoc(t); doc != out {
		t.Errorf("docs/cli.md is not current: run make docs (first difference near line %d)", firstDiffLine(doc, out))
	}
}

// docs/cli.md has a section for every visible command and names every StarlingX alias.
func TestCLIDocListsEveryCommand(t *testing.T) {
	doc := cliDoc(t)
	for _, n := range commands(grammar(t).Node, false) {
		if head := "\n### kupgrade " + n.Path() + "\n"; !strings.Contains(doc, head) {
			t.Errorf("docs/cli.md has no section %q", strings.TrimSpace(head))
		}
	}
	for _, n := range commands(grammar(t).Node, true) {
		if target, ok := aliasOf(n); ok && !strings.Contains(doc, n.Name+" ") {
			t.Errorf("docs/cli.md does not name the StarlingX alias %s (of %s)", n.Name, target)
		}
	}
}

func firstDiffLine(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}
