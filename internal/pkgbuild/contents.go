package pkgbuild

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/goreleaser/nfpm/v2/files"

	"github.com/kupgrade/kupgrade/internal/dashboard"
)

// Installed paths that tests and documents refer to.
const (
	BinPath       = "/usr/bin/kupgrade"
	UnitPath      = "/usr/lib/systemd/system/kupgrade-watch.service"
	EnvPath       = "/etc/kupgrade/watch.env"
	DashboardPath = "/usr/share/kupgrade/grafana/kupgrade-dashboard.json"
	AlertsPath    = "/usr/share/kupgrade/prometheus/kupgrade-alerts.yml"
	ManPath       = "/usr/share/man/man1/kupgrade.1.gz"
)

// generated are the files made for the package rather than taken from the tree: the name under
// the staging folder, where it is installed (per packager when zsh's folder differs), and how
// to make it.
type generated struct {
	name, dst, packager string
	make                func(bin string) ([]byte, error)
}

func generatedFiles() []generated {
	return []generated{
		{"kupgrade.1.gz", ManPath, "", manPage},
		{"kupgrade.bash", "/usr/share/bash-completion/completions/kupgrade", "", completion("bash")},
		{"_kupgrade", "/usr/share/zsh/vendor-completions/_kupgrade", "deb", completion("zsh")},
		{"_kupgrade", "/usr/share/zsh/site-functions/_kupgrade", "rpm", completion("zsh")},
		{"kupgrade.fish", "/usr/share/fish/vendor_completions.d/kupgrade.fish", "", completion("fish")},
		{"kupgrade-dashboard.json", DashboardPath, "", func(string) ([]byte, error) { return dashboard.JSON() }},
	}
}

// stage writes the generated files into dir and returns the package's contents: those, the
// binary and the tree's files under root.
func stage(root, bin, dir string) (files.Contents, error) {
	contents := files.Contents{
		{Source: bin, Destination: BinPath, FileInfo: &files.ContentFileInfo{Mode: 0o755}},
		{Source: filepath.Join(root, "deploy/prometheus/kupgrade-alerts.yml"), Destination: AlertsPath},
		{Source: filepath.Join(root, "deploy/systemd/kupgrade-watch.service"), Destination: UnitPath},
		{Source: filepath.Join(root, "deploy/systemd/watch.env"), Destination: EnvPath, Type: files.TypeConfigNoReplace},
	}
	for _, g := range generatedFiles() {
		b, err := g.make(bin)
		if err != nil {
			return nil, err
		}
		src := filepath.Join(dir, g.name)
		if err := os.WriteFile(src, b, 0o644); err != nil {
			return nil, err
		}
		contents = append(contents, &files.Content{Source: src, Destination: g.dst, Packager: g.packager})
	}
	return contents, nil
}

func completion(shell string) func(string) ([]byte, error) {
	return func(bin string) ([]byte, error) { return run(bin, "completion", shell, "--bin", BinPath) }
}

func manPage(bin string) ([]byte, error) {
	page, err := run(bin, "man")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	z.Write(page) //nolint:errcheck // a bytes.Buffer does not fail
	if err := z.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// run is the binary's output for args.
func run(bin string, args ...string) ([]byte, error) {
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return nil, fmt.Errorf("%s %v: %w: %s (build it first: make build)", bin, args, err, stderr)
	}
	return out, nil
}
