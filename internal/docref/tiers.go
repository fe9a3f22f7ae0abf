package docref

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// UnlistedTests returns the top-level tests of package folder pkg (TestMain aside) that doc, a
// Markdown file under root, never names: the table of docs/testing.md says where each Docker
// test's property is proved, and a test added without its row, or a row whose test was renamed
// away, would let a property be lost on the way between tiers unnoticed.
func UnlistedTests(root, doc, pkg string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		return nil, err
	}
	names, err := testNames(root, pkg)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if !strings.HasPrefix(n, "Test") || n == "TestMain" {
			continue
		}
		if !regexp.MustCompile(`\b` + n + `\b`).Match(b) {
			out = append(out, fmt.Sprintf("%s: %s of %s is not named (add it to the table of which test proves what)", doc, n, pkg))
		}
	}
	return out, nil
}
