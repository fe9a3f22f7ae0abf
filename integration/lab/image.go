package lab

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	docker "github.com/ory/dockertest/v3/docker"
)

// recipe is everything that goes into the image: build.sh, setup.sh, the package list and the
// files copied into the root. Its hash names the image.
//
//go:embed image
var recipe embed.FS

// ImageRepository is the repository of the lab image; the tag is the recipe's hash.
const ImageRepository = "kupgrade-lab"

const buildRepository = "kupgrade-lab-build"

// ImageTag returns the lab image's reference, kupgrade-lab:<first 12 hex of the recipe hash>.
func ImageTag() string {
	return ImageRepository + ":" + recipeHash()
}

func recipeHash() string {
	var names []string
	_ = fs.WalkDir(recipe, "image", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		data, _ := recipe.ReadFile(name)
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// EnsureImage returns the lab image's reference, building it first when no image has that tag.
// Concurrent callers (two test processes) serialise on a lock file; the loser reuses the
// winner's image. Build output goes to a log file; log gets a line before, the build's phases
// as it goes (buildProgress), and a line after.
func EnsureImage(ctx context.Context, log io.Writer) (string, error) {
	tag := ImageTag()
	client, err := dockerClient()
	if err != nil {
		return "", err
	}
	if ok, err := imageExists(client, tag); err != nil || ok {
		return tag, err
	}
	unlock, err := lockFile(ctx, filepath.Join(os.TempDir(), "kupgrade-lab-image.lock"), log)
	if err != nil {
		return "", err
	}
	defer unlock()
	if ok, err := imageExists(client, tag); err != nil || ok {
		return tag, err
	}
	if err := buildImage(ctx, client, tag, log); err != nil {
		return "", err
	}
	return tag, nil
}

func imageExists(client *docker.Client, ref string) (bool, error) {
	_, err := client.InspectImage(ref)
	if errors.Is(err, docker.ErrNoSuchImage) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inspect image %s: %w", ref, err)
	}
	return true, nil
}

// lockFile takes an exclusive flock on path, polling so that ctx can cancel the wait.
func lockFile(ctx context.Context, path string, log io.Writer) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	for waited := false; ; waited = true {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !waited {
			fmt.Fprintf(log, "lab: another process is building the lab image, waiting (%s)\n", path)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("wait for image lock: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// buildImage runs the recipe into a fresh root, imports it under a temporary tag and only then
// gives it the final tag, so an interrupted build leaves no image under the final tag.
func buildImage(ctx context.Context, client *docker.Client, tag string, log io.Writer) error {
	start := time.Now()
	hash := recipeHash()
	work := filepath.Join(os.TempDir(), "kupgrade-lab-build-"+hash)
	if err := removeWork(work); err != nil {
		return err
	}
	defer removeWork(work)
	removeBuildTags(client)
	mirror, err := debianMirror()
	if err != nil {
		return err
	}
	if err := extractRecipe(filepath.Join(work, "recipe")); err != nil {
		return err
	}
	logPath := filepath.Join(os.TempDir(), "kupgrade-lab-build.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("create build log: %w", err)
	}
	defer logFile.Close()
	fmt.Fprintf(log, "lab: building image %s with debootstrap from %s (takes a few minutes; log: %s)\n", tag, mirror, logPath)

	root := filepath.Join(work, "root")
	cache := filepath.Join(os.TempDir(), "kupgrade-lab-debs")
	build := groupCommand(ctx, "bash", filepath.Join(work, "recipe", "build.sh"), root, mirror, cache)
	out := io.MultiWriter(logFile, newBuildProgress(log)) // one writer: exec.Cmd copies it once
	build.Stdout, build.Stderr = out, out
	if err := build.Run(); err != nil {
		return fmt.Errorf("build lab root (see %s): %w", logPath, err)
	}
	fmt.Fprintf(log, "lab: [%s] importing the root into Docker as %s\n", time.Since(start).Round(time.Second), tag)
	tmp := fmt.Sprintf("%s:%s-%d", buildRepository, hash, os.Getpid())
	if err := importRoot(ctx, root, tmp, logFile); err != nil {
		return fmt.Errorf("import lab root (see %s): %w", logPath, err)
	}
	repo, version, _ := strings.Cut(tag, ":")
	if err := client.TagImage(tmp, docker.TagImageOptions{Repo: repo, Tag: version, Context: ctx}); err != nil {
		return fmt.Errorf("tag %s: %w", tag, err)
	}
	removeBuildTags(client)
	removeOldImages(client, tag)
	fmt.Fprintf(log, "lab: built image %s in %s\n", tag, time.Since(start).Round(time.Second))
	return nil
}

// importRoot pipes `tar -C root -c .` into `docker import`.
func importRoot(ctx context.Context, root, ref string, logFile io.Writer) error {
	tar := groupCommand(ctx, "tar", "-C", root, "--numeric-owner", "-c", ".")
	imp := groupCommand(ctx, "docker", "import", "--change",
		`CMD ["/usr/local/sbin/kupgrade-lab-entrypoint"]`, "-", ref)
	pipe, err := tar.StdoutPipe()
	if err != nil {
		return fmt.Errorf("pipe tar: %w", err)
	}
	tar.Stderr, imp.Stdin, imp.Stdout, imp.Stderr = logFile, pipe, logFile, logFile
	if err := tar.Start(); err != nil {
		return fmt.Errorf("start tar: %w", err)
	}
	impErr := imp.Run()
	tarErr := tar.Wait()
	return errors.Join(impErr, tarErr)
}

// removeBuildTags drops temporary tags of builds that died between import and tag. Called only
// under the image lock, so no live build owns them.
func removeBuildTags(client *docker.Client) {
	images, err := client.ListImages(docker.ListImagesOptions{Filter: buildRepository})
	if err != nil {
		return
	}
	for _, img := range images {
		for _, ref := range img.RepoTags {
			if strings.HasPrefix(ref, buildRepository+":") {
				_ = client.RemoveImage(ref)
			}
		}
	}
}

// keptImages is how many lab images of other recipes survive a build: worktrees and branches
// at different recipes test side by side, and each rebuild takes minutes.
const keptImages = 3

// removeOldImages drops lab images of older recipes (each is about 500 MB) but the keptImages
// newest besides keep. One still used by a container is kept: removal without force refuses it.
func removeOldImages(client *docker.Client, keep string) {
	images, err := client.ListImages(docker.ListImagesOptions{Filter: ImageRepository})
	if err != nil {
		return
	}
	sort.Slice(images, func(i, j int) bool { return images[i].Created > images[j].Created })
	others := 0
	for _, img := range images {
		for _, ref := range img.RepoTags {
			if !strings.HasPrefix(ref, ImageRepository+":") || ref == keep {
				continue
			}
			if others++; others > keptImages {
				_ = client.RemoveImage(ref)
			}
		}
	}
}

// groupCommand runs name in its own process group and kills the whole group when ctx ends, so
// an interrupted debootstrap does not keep running.
func groupCommand(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

func extractRecipe(dir string) error {
	return fs.WalkDir(recipe, "image", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "image")))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := recipe.ReadFile(p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") || strings.Contains(path.Dir(p), "bin") {
			mode = 0o755
		}
		return os.WriteFile(dst, data, mode)
	})
}
