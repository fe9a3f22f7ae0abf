package docref

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every document a comment, a migration, the model or a document of kupgrade names exists in the
// repository.
func TestEveryCitedDocumentExists(t *testing.T) {
	missing, err := Missing(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range missing {
		t.Errorf("%s: cite the docs/ file that holds it", r)
	}
}

// Missing reports a citation of a document that is not there, with its file and line, and
// accepts one beside the citing file, one from the root, a web address and the skipped folders.
func TestMissingFindsDanglingReferences(t *testing.T) {
	const md = ".md" // spelled apart, so that this file cites nothing itself
	root := t.TempDir()
	write(t, root, "docs/states"+md, "See [the CLI](cli"+md+") and [kubeadm](kubeadm"+md+"#phases).\n")
	write(t, root, "docs/cli"+md, "generated\n")
	write(t, root, "pkg/a.go", "package pkg\n\n// The one failed map (docs/states"+md+").\n// As STATES"+md+" says.\n")
	write(t, root, "pkg/b_test.go", "package pkg\n\n// https://example.com/x/README"+md+", see also NOTES"+md+"\n")
	write(t, root, "integration/lab/image/kubeadm", "# design/KUBEADM"+md+"\n")
	write(t, root, "integration/lab/image/x.go", "// design/KUBEADM"+md+"\n")
	got, err := Missing(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []Ref{
		{File: "docs/states" + md, Line: 1, Name: "kubeadm" + md},
		{File: "pkg/a.go", Line: 4, Name: "STATES" + md},
		{File: "pkg/b_test.go", Line: 3, Name: "NOTES" + md},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Missing = %v, want %v", got, want)
	}
}

func write(t *testing.T, root, name, body string) {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every `go test` command the README and docs/ quote runs some test: a property's proof does not
// go on citing a test that was renamed, moved or deleted.
func TestDocumentedTestCommandsRunATest(t *testing.T) {
	root := filepath.Join("..", "..")
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, d := range append(docs, filepath.Join(root, "README.md")) {
		rel, _ := filepath.Rel(root, d)
		stale, err := StaleTestCommands(root, rel)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stale {
			t.Error(s)
		}
	}
}

// StaleTestCommands finds a renamed test, a missing package and a subtest's parent that is gone,
// and accepts alternatives, subtests, env prefixes, "..." and a pattern matching part of a name.
func TestStaleTestCommands(t *testing.T) {
	doc := "doc" + ".md" // spelled apart, so that this file cites nothing itself
	root := t.TempDir()
	write(t, root, "a/a_test.go", "package a\n\nfunc TestAuditOne(t *testing.T) {}\nfunc TestConformance(t *testing.T) {}\n")
	write(t, root, "b/c/c_test.go", "package c\n\nfunc FuzzDSN(f *testing.F) {}\n")
	write(t, root, doc, "ok: `go test ./a -run 'TestAudit\\|TestConformance/Race'`, `X=1 go test ./b/... -run DSN`,\n"+
		"`go test ./a`, `go test -run '^$' -bench . ./a`\n"+
		"stale: `go test ./a -run TestGone`, `go test ./nowhere`, `go test ./a -run 'TestSuite/Race'`, `go test ./b -run DSN`\n")
	got, err := StaleTestCommands(root, doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		doc + ": `go test ./a -run TestGone`: no test matches \"TestGone\"",
		doc + ": `go test ./nowhere`: package ./nowhere does not exist",
		doc + ": `go test ./a -run 'TestSuite/Race'`: no test matches \"TestSuite\"",
		doc + ": `go test ./b -run DSN`: no test matches \"DSN\"",
	}
	if !slices.Equal(got, want) {
		t.Errorf("StaleTestCommands =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every test of the Docker tier is named in docs/testing.md's table of which test proves what
// in which tier.
func TestEveryDockerTestHasItsRow(t *testing.T) {
	missing, err := UnlistedTests(filepath.Join("..", ".."), "docs/testing.md", "./integration")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		t.Error(m)
	}
}

// UnlistedTests names a test its document does not, and takes a longer name for no other.
func TestUnlistedTests(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "pkg"), 0o755)
	os.WriteFile(filepath.Join(root, "pkg", "a_test.go"), []byte("package p\n\nfunc TestMain(m *testing.M) {}\nfunc TestA(t *testing.T) {}\nfunc TestB(t *testing.T) {}\n"), 0o644)
	os.WriteFile(filepath.Join(root, "doc.txt"), []byte("TestA proves one thing; TestBee another.\n"), 0o644)
	got, err := UnlistedTests(root, "doc.txt", "./pkg")
	if err != nil || len(got) != 1 || !strings.Contains(got[0], "TestB of") {
		t.Errorf("UnlistedTests = %q, %v; want TestB alone", got, err)
	}
}
