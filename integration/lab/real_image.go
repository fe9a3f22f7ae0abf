package lab

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// realRecipe builds a real lab: the Kubernetes binaries from source (real/build.sh), crictl and
// pause, the images kubeadm asks for (real/images) and the node image (real/node).
//
//go:embed real
var realRecipe embed.FS

// RealVersions are the real lab's Kubernetes versions, in order: it starts at the first, and
// each is one minor past the one before. They are the newest triple whose every module the
// proxy serves (v1.32.13 lacks k8s.io/endpointslice) and whose kubelet runs on Debian's
// containerd 1.6 on this machine's cgroup v1 (docs/labs.md, "A real Kubernetes").
var RealVersions = []string{RealFromVersion, RealToVersion, RealLastVersion}

// The real lab's versions by role: where it starts, the next minor (the one-hop upgrade of the
// tests) and the last.
const (
	RealFromVersion = "v1.30.14"
	RealToVersion   = "v1.31.1"
	RealLastVersion = "v1.32.2"
)

// RealNodeRepository is the repository of real lab node images; the tag is the recipe's hash.
const RealNodeRepository = "kupgrade-lab-real"

// RealBuild is what a real lab runs from: the node image and the cache folders mounted into
// every node and into its package server.
type RealBuild struct {
	Versions  []string // in order; the lab starts at the first
	From, To  string   // the first and the second version
	NodeImage string   // kupgrade-lab-real:<hash>
	BinDir    string   // <cache>/bin-<hash of build.sh>/<version>/{kubeadm,kubelet,...}, tools/
	ImageDir  string   // <cache>/images-<hash>/images-<version>.tar
	PkgDir    string   // <cache>/pkgs-<hash>/repo/core:/stable:/v1.Y/deb/ per minor, bin/serve
}

// RealCacheDir is where real lab builds are kept: $KUPGRADE_LAB_CACHE, else
// ~/.cache/kupgrade-lab/real.
func RealCacheDir() string {
	if d := os.Getenv("KUPGRADE_LAB_CACHE"); d != "" {
		return d
	}
	home, err := os.UserCacheDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, "kupgrade-lab", "real")
}

// RealBuildOf names the build of versions (at least two, in order), each part keyed by the
// recipe files it comes from, so that a change to the node's scripts rebuilds neither
// Kubernetes nor the archives nor the packages: binaries by build.sh, image archives (one per
// version) by build.sh, images/ and pause/, packages (one per version) by build.sh and pkgs/,
// the node image by everything and the versions. Nothing depends on the simulated lab's image.
func RealBuildOf(versions ...string) RealBuild {
	src := hashOf(func(name string) bool { return name == "real/build.sh" })
	imgs := hashOf(func(name string) bool {
		return name == "real/build.sh" || strings.HasPrefix(name, "real/images/") || strings.HasPrefix(name, "real/pause/")
	})
	pkgs := hashOf(func(name string) bool { return name == "real/build.sh" || strings.HasPrefix(name, "real/pkgs/") })
	all := hashOf(func(string) bool { return true })
	cache := RealCacheDir()
	b := RealBuild{
		Versions: versions, NodeImage: RealNodeRepository + ":" + shortHash(append([]string{all}, versions...)...),
		BinDir: filepath.Join(cache, "bin-"+src), ImageDir: filepath.Join(cache, "images-"+imgs),
		PkgDir: filepath.Join(cache, "pkgs-"+pkgs),
	}
	if len(versions) > 1 {
		b.From, b.To = versions[0], versions[1]
	}
	return b
}

func shortHash(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:])[:12]
}

// hashOf hashes the real recipe's files whose names keep says.
func hashOf(keep func(string) bool) string {
	var names []string
	_ = fs.WalkDir(realRecipe, "real", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && keep(p) {
			names = append(names, p)
		}
		return err
	})
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		data, _ := realRecipe.ReadFile(name)
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// RealCached reports whether the real lab of versions is built: every version's image archive
// and packages, the package server and the node image exist. Tests use it to decide whether to
// run without KUPGRADE_FULL.
func RealCached(versions ...string) bool {
	b := RealBuildOf(versions...)
	need := []string{filepath.Join(b.PkgDir, "bin", "serve")}
	for _, v := range versions {
		need = append(need, filepath.Join(b.ImageDir, "images-"+v+".tar"), b.packageFile("kubectl", v))
	}
	for _, f := range need {
		if _, err := os.Stat(f); err != nil {
			return false
		}
	}
	client, err := dockerClient()
	if err != nil {
		return false
	}
	ok, err := imageExists(client, b.NodeImage)
	return err == nil && ok
}

// packageFile is where the package of what at version lies in its minor's repository.
func (b RealBuild) packageFile(what, version string) string {
	minor := version[:strings.LastIndex(version, ".")]
	return filepath.Join(b.PkgDir, "repo", "core:", "stable:", minor, "deb",
		fmt.Sprintf("%s_%s-1.1_%s.deb", what, strings.TrimPrefix(version, "v"), debArch()))
}

// debArch is this machine's architecture as Debian names it (dpkg --print-architecture), which
// the packages' file names carry.
func debArch() string {
	if a, ok := map[string]string{"386": "i386", "arm": "armhf", "ppc64le": "ppc64el"}[runtime.GOARCH]; ok {
		return a
	}
	return runtime.GOARCH
}

// EnsureReal builds what the real lab of versions needs, unless it is built: cold, this
// compiles a Kubernetes release per version (tens of minutes each on two cores); warm,
// seconds. Output goes to <cache>/build.log; log gets the start, the steps and the end.
func EnsureReal(ctx context.Context, versions []string, log io.Writer) (RealBuild, error) {
	if len(versions) < 2 {
		return RealBuild{}, fmt.Errorf("build real lab: %d versions (%v), want at least two in order", len(versions), versions)
	}
	b := RealBuildOf(versions...)
	if RealCached(versions...) {
		return b, nil
	}
	if err := os.MkdirAll(b.ImageDir, 0o755); err != nil {
		return b, fmt.Errorf("create real lab cache: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(RealCacheDir(), "build.lock"), log)
	if err != nil {
		return b, err
	}
	defer unlock()
	if RealCached(versions...) {
		return b, nil
	}
	return b, buildReal(ctx, b, log)
}

func buildReal(ctx context.Context, b RealBuild, log io.Writer) error {
	start := time.Now()
	mirror, err := debianMirror()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "kupgrade-lab-real-recipe-")
	if err != nil {
		return fmt.Errorf("extract real lab recipe: %w", err)
	}
	defer os.RemoveAll(work)
	if err := extractReal(work); err != nil {
		return err
	}
	logPath := filepath.Join(RealCacheDir(), "build.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("create build log: %w", err)
	}
	defer logFile.Close()
	fmt.Fprintf(log, "lab: building the real lab %s (%s; cold: tens of minutes; log: %s)\n",
		strings.Join(b.Versions, " -> "), b.NodeImage, logPath)
	args := append([]string{filepath.Join(work, "build-all.sh"), work, b.BinDir, b.ImageDir, b.PkgDir,
		b.NodeImage, mirror, filepath.Join(os.TempDir(), "kupgrade-lab-debs")}, b.Versions...)
	cmd := groupCommand(ctx, "bash", args...)
	cmd.Stdout, cmd.Stderr = io.MultiWriter(logFile, log), logFile
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build real lab (see %s): %w", logPath, err)
	}
	fmt.Fprintf(log, "lab: built the real lab in %s\n", time.Since(start).Round(time.Second))
	return nil
}

func extractReal(dir string) error {
	return fs.WalkDir(realRecipe, "real", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "real")))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := realRecipe.ReadFile(p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") || strings.Contains(path.Dir(p), "bin") {
			mode = 0o755
		}
		if err := os.WriteFile(dst, data, mode); err != nil {
			return fmt.Errorf("extract real lab recipe: %w", err)
		}
		return nil
	})
}
