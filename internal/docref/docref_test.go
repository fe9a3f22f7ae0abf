package docref

import (
	"os"
	"path/filepath"
	"slices"
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
