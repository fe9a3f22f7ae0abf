package layout

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMakeBuildBuildsTheBinariesTheDocsName: every command of the repository (a folder of
// cmd/ or integration/cmd/) that README.md or docs/ names is built by `make build`, so that a
// reader who ran it can type what the docs show.
func TestMakeBuildBuildsTheBinariesTheDocsName(t *testing.T) {
	root := filepath.Join("..", "..")
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	recipe := regexp.MustCompile(`(?m)^build:.*\n((?:\t.*\n)+)`).FindSubmatch(makefile)
	if recipe == nil {
		t.Fatal("Makefile: no build target with a recipe")
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	named := map[string]string{}
	for _, doc := range append(docs, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range regexp.MustCompile(`\bkupgrade-[a-z]+\b`).FindAllString(string(b), -1) {
			named[name] = doc
		}
	}
	checked := 0
	for name, doc := range named {
		for _, dir := range []string{"cmd/" + name, "integration/cmd/" + name} {
			if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
				continue
			}
			checked++
			if !strings.Contains(string(recipe[1]), "./"+dir+"\n") {
				t.Errorf("%s names %s, which `make build` does not build: add `$(GO) build -o bin/%s ./%s` to the Makefile's build target", doc, name, name, dir)
			}
		}
	}
	if checked == 0 {
		t.Error("the docs name no command of cmd/ or integration/cmd/: the test looks in the wrong place")
	}
}
