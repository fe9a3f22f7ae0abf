package pkgbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/goreleaser/nfpm/v2"
	"github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
	"github.com/goreleaser/nfpm/v2/rpm"
)

// ChecksumFile is the name of the checksums written beside the packages, in sha256sum's format
// (`sha256sum -c SHA256SUMS` checks them).
const ChecksumFile = "SHA256SUMS"

// Options say what to package and where.
type Options struct {
	Root    string // the repository, for deploy/
	Bin     string // the kupgrade binary built for Arch
	Version string // git describe's output (a tag, or a commit); see PackageVersion
	Commit  string
	Arch    string   // Go's name: amd64, arm64
	Out     string   // folder for the packages and ChecksumFile
	Formats []string // "deb", "rpm"; default both
}

var packagers = map[string]nfpm.Packager{"deb": deb.Default, "rpm": rpm.DefaultRPM}

// Build writes the .deb, the .rpm (or opts.Formats) and ChecksumFile into opts.Out and returns
// their paths, ChecksumFile last.
func Build(opts Options) ([]string, error) {
	stageDir, err := os.MkdirTemp("", "kupgrade-package-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stageDir)
	contents, err := stage(opts.Root, opts.Bin, stageDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	formats := opts.Formats
	if len(formats) == 0 {
		formats = []string{"deb", "rpm"}
	}
	var paths []string
	for _, f := range formats {
		if packagers[f] == nil {
			return nil, fmt.Errorf("no packager for %q: deb or rpm", f)
		}
		path, err := write(packagers[f], info(opts, contents), opts.Out)
		if err != nil {
			return nil, fmt.Errorf("build the .%s: %w", f, err)
		}
		paths = append(paths, path)
	}
	sums, err := WriteChecksums(opts.Out, paths)
	return append(paths, sums), err
}

// info is the package's metadata; each packager gets its own, as nfpm prepares the contents in
// place.
func info(opts Options, contents files.Contents) *nfpm.Info {
	var own files.Contents
	for _, c := range contents {
		cc := *c
		own = append(own, &cc)
	}
	i := &nfpm.Info{
		Name: "kupgrade", Arch: opts.Arch, Platform: "linux",
		Version: PackageVersion(opts.Version, opts.Commit), VersionSchema: "none",
		Section: "admin", Priority: "optional", Maintainer: "kupgrade developers <kupgrade@localhost>",
		Description: "Upgrade kubeadm-based Kubernetes clusters over SSH, and never strand an upgrade.\n" +
			"With kupgrade-watch.service, the audit of every upgrade, a status page and Prometheus metrics.",
		License: "Apache-2.0",
		Overridables: nfpm.Overridables{Contents: own, Scripts: nfpm.Scripts{
			PostInstall: filepath.Join(opts.Root, "deploy/package/postinstall.sh"),
			PreRemove:   filepath.Join(opts.Root, "deploy/package/preremove.sh"),
			PostRemove:  filepath.Join(opts.Root, "deploy/package/postremove.sh"),
		}},
	}
	i.RPM.Summary = "Upgrade kubeadm-based Kubernetes clusters over SSH"
	return nfpm.WithDefaults(i)
}

func write(p nfpm.Packager, i *nfpm.Info, out string) (string, error) {
	path := filepath.Join(out, p.ConventionalFileName(i))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := p.Package(i, f); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	return path, f.Close()
}

// release is a tag as git describe gives it: v1.2.3, or v1.2.3-4-gabcdef0 past it.
var release = regexp.MustCompile(`^v?([0-9]+\.[0-9]+\.[0-9]+)(-([0-9]+)-g[0-9a-f]+)?(-dirty)?$`)

// PackageVersion turns git describe's output into a version both dpkg and rpm order rightly:
// v1.2.3 is 1.2.3, 4 commits past it 1.2.3+git4.COMMIT; without a tag 0.0.0+git.COMMIT.
// A dirty tree adds .dirty.
func PackageVersion(describe, commit string) string {
	dirty := ""
	if strings.HasSuffix(describe, "-dirty") {
		dirty = ".dirty"
	}
	m := release.FindStringSubmatch(describe)
	switch {
	case m == nil:
		return "0.0.0+git." + commit + dirty
	case m[3] != "":
		return m[1] + "+git" + m[3] + "." + commit + dirty
	}
	return m[1] + strings.ReplaceAll(dirty, ".", "+")
}

// WriteChecksums writes the SHA-256 of each path (by its base name) into dir/ChecksumFile.
func WriteChecksums(dir string, paths []string) (string, error) {
	var b strings.Builder
	for _, p := range paths {
		sum, err := fileSHA256(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, filepath.Base(p))
	}
	out := filepath.Join(dir, ChecksumFile)
	return out, os.WriteFile(out, []byte(b.String()), 0o644)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
