package jinja_test

import (
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// The engine stands alone: it imports nothing of kupgrade's, so that playbooks, the runner and
// anything else may use it without pulling in what they do not need (or a cycle).
func TestImportsNothingOfKupgrade(t *testing.T) {
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		for name, f := range pkg.Files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			for _, is := range f.Imports {
				if p, _ := strconv.Unquote(is.Path.Value); strings.HasPrefix(p, "github.com/kupgrade/") {
					t.Errorf("%s imports %s: the jinja package must not depend on the rest of kupgrade", name, p)
				}
			}
		}
	}
}
