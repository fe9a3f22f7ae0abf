package docref

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// goTest is a `go test ...` command quoted in a document; testFunc a test, benchmark or fuzz
// target declared in a _test.go file.
var (
	goTest   = regexp.MustCompile("`(?:[A-Z_]+=\\S+\\s+)*go\\s+test\\s+([^`]*)`")
	testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)\w*)\(`)
)

// StaleTestCommands returns, for each `go test` command quoted in doc (a Markdown file under
// root), the reasons it would run nothing: a package folder that does not exist, or a -run
// pattern no test of those packages matches. A document that proves a property by a command
// must not keep citing a test that was renamed or moved.
func StaleTestCommands(root, doc string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range goTest.FindAllStringSubmatch(string(b), -1) {
		args := strings.Fields(m[1])
		pkgs, run := testArgs(args)
		if problem := checkTestCommand(root, pkgs, run); problem != "" {
			out = append(out, fmt.Sprintf("%s: `go test %s`: %s", doc, strings.Join(args, " "), problem))
		}
	}
	return out, nil
}

// testArgs picks the package paths and the -run pattern out of go test's arguments.
func testArgs(args []string) (pkgs []string, run string) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-run" && i+1 < len(args):
			i++
			run = strings.Trim(args[i], `'"`)
		case strings.HasPrefix(a, "./"):
			pkgs = append(pkgs, strings.TrimSuffix(a, "/"))
		}
	}
	return pkgs, run
}

func checkTestCommand(root string, pkgs []string, run string) string {
	var names []string
	for _, p := range pkgs {
		found, err := testNames(root, p)
		if err != nil {
			return err.Error()
		}
		names = append(names, found...)
	}
	if run == "" || run == "^$" {
		return ""
	}
	for _, alt := range strings.Split(strings.ReplaceAll(run, `\|`, "|"), "|") {
		top, _, _ := strings.Cut(strings.Trim(alt, "^$"), "/")
		if !matchesAny(top, names) {
			return fmt.Sprintf("no test matches %q", top)
		}
	}
	return ""
}

// testNames lists the tests of package folder p, and of every folder below it for "p/...".
func testNames(root, p string) ([]string, error) {
	dir, all := strings.CutSuffix(p, "/...")
	var names []string
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("package %s does not exist", dir)
		}
		if d.IsDir() && path != filepath.Join(root, dir) && !all {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
				names = append(names, m[1])
			}
		}
		return nil
	})
	return names, err
}

// matchesAny reports whether pattern, as go test -run reads it (a regular expression matched
// anywhere in the name), matches one of names.
func matchesAny(pattern string, names []string) bool {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return false
	}
	for _, n := range names {
		if re.MatchString(n) {
			return true
		}
	}
	return false
}
