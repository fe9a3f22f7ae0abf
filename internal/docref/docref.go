package docref

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Skipped are the folders Missing does not read, from the root. integration/lab/image is the
// lab image's recipe: a change to any file there changes the image's hash and forces a rebuild
// of about 36 minutes on every machine, so its comments keep citing what they cite.
var Skipped = []string{".git", "integration/lab/image"}

// scanned are the kinds of file whose references are checked.
var scanned = []string{".go", ".md", ".sql", ".pml"}

// ref matches a file name ending in .md; a web address is matched whole, so it can be told apart.
var ref = regexp.MustCompile(`[A-Za-z0-9_][A-Za-z0-9_./:-]*\.md\b`)

// Ref is one reference to a document that does not exist.
type Ref struct {
	File string // the citing file, from the root
	Line int
	Name string // the document as cited
}

func (r Ref) String() string { return fmt.Sprintf("%s:%d: %s does not exist", r.File, r.Line, r.Name) }

// Missing returns every reference under root to a *.md file that exists neither relative to the
// citing file's folder nor relative to root.
func Missing(root string) ([]Ref, error) {
	var out []Ref
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && skipped(rel) {
			return filepath.SkipDir
		}
		if d.IsDir() || !wanted(rel) {
			return nil
		}
		refs, err := missingIn(root, rel)
		out = append(out, refs...)
		return err
	})
	return out, err
}

func skipped(rel string) bool {
	for _, s := range Skipped {
		if rel == s {
			return true
		}
	}
	return false
}

func wanted(rel string) bool {
	for _, ext := range scanned {
		if strings.HasSuffix(rel, ext) {
			return true
		}
	}
	return false
}

// missingIn checks the references of one file.
func missingIn(root, rel string) ([]Ref, error) {
	f, err := os.Open(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Ref
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.NewReplacer(`\n`, " ", `\t`, " ").Replace(sc.Text()) // a Go string's \n before a name
		for _, name := range ref.FindAllString(line, -1) {
			if !strings.Contains(name, "://") && !exists(root, rel, name) {
				out = append(out, Ref{File: rel, Line: n, Name: name})
			}
		}
	}
	return out, sc.Err()
}

func exists(root, rel, name string) bool {
	for _, base := range []string{filepath.Join(root, filepath.Dir(rel)), root} {
		if _, err := os.Stat(filepath.Join(base, name)); err == nil {
			return true
		}
	}
	return false
}
