package pkgbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestPackageVersion(t *testing.T) {
	for _, c := range []struct{ describe, want string }{
		{"v1.2.3", "1.2.3"},
		{"1.2.3", "1.2.3"},
		{"v1.2.3-4-gabcdef0", "1.2.3+git4.abcdef0"},
		{"v1.2.3-dirty", "1.2.3+dirty"},
		{"v1.2.3-4-gabcdef0-dirty", "1.2.3+git4.abcdef0.dirty"},
		{"abcdef0", "0.0.0+git.abcdef0"},
		{"abcdef0-dirty", "0.0.0+git.abcdef0.dirty"},
	} {
		if got := PackageVersion(c.describe, "abcdef0"); got != c.want {
			t.Errorf("PackageVersion(%q) = %q, want %q", c.describe, got, c.want)
		}
	}
}

// need returns the path of tool, skipping the test where it is missing (failing it in CI,
// where `make deps` installs it).
func need(t *testing.T, tool, pkg string) string {
	p, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing (Debian's %s package; `make deps` installs it)", tool, pkg)
		}
		t.Skipf("%s is missing: install Debian's %s package (`make deps`)", tool, pkg)
	}
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built packages kupgrade, built here, into a temporary folder once per test binary.
var built struct {
	dir   string
	paths []string
	err   error
}

func packages(t *testing.T) (deb, rpm, sums string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds kupgrade and both packages")
	}
	if built.dir == "" {
		built.dir, built.err = os.MkdirTemp("", "kupgrade-pkgbuild-test-")
		if built.err != nil {
			t.Fatal(built.err)
		}
		bin := filepath.Join(built.dir, "kupgrade")
		build := exec.Command("go", "build", "-ldflags", "-X main.version=v1.2.3 -X main.commit=abcdef0", "-o", bin, "../../cmd/kupgrade")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		built.paths, built.err = Build(Options{Root: "../..", Bin: bin, Version: "v1.2.3", Commit: "abcdef0", Arch: runtime.GOARCH, Out: filepath.Join(built.dir, "dist")})
	}
	if built.err != nil || len(built.paths) != 3 {
		t.Fatalf("Build: %v (%v)", built.err, built.paths)
	}
	return built.paths[0], built.paths[1], built.paths[2]
}

// The installed files every package holds, wherever the packager puts zsh's functions.
var wantFiles = []string{BinPath, ManPath, UnitPath, EnvPath, DashboardPath, AlertsPath,
	"/usr/share/bash-completion/completions/kupgrade", "/usr/share/fish/vendor_completions.d/kupgrade.fish"}

func TestDebContents(t *testing.T) {
	deb, _, _ := packages(t)
	out := run1(t, "dpkg-deb", "-c", deb)
	for _, f := range append(wantFiles, "/usr/share/zsh/vendor-completions/_kupgrade") {
		if !strings.Contains(out, " ."+f+"\n") {
			t.Errorf("%s lacks %s:\n%s", deb, f, out)
		}
	}
	if conf := run1(t, "dpkg-deb", "-f", deb, "Version"); conf != "1.2.3\n" {
		t.Errorf("Version %q, want 1.2.3", conf)
	}
	dir := t.TempDir()
	run1(t, "dpkg-deb", "--control", deb, dir)
	if b, _ := os.ReadFile(filepath.Join(dir, "conffiles")); string(b) != EnvPath+"\n" {
		t.Errorf("conffiles %q: the environment file must be a conffile, an operator's edits kept", b)
	}
}

func TestRpmContents(t *testing.T) {
	_, rpm, _ := packages(t)
	need(t, "rpm", "rpm")
	out := run1(t, "rpm", "-qlp", rpm)
	for _, f := range append(wantFiles, "/usr/share/zsh/site-functions/_kupgrade") {
		if !strings.Contains("\n"+out, "\n"+f+"\n") {
			t.Errorf("rpm -qlp %s lacks %s:\n%s", rpm, f, out)
		}
	}
	if cfg := run1(t, "rpm", "-qcp", rpm); cfg != EnvPath+"\n" {
		t.Errorf("rpm -qcp: %q, want the environment file alone as a config file", cfg)
	}
}

// The checksums file lists both packages, and sha256sum checks them.
func TestChecksums(t *testing.T) {
	deb, rpm, sums := packages(t)
	b, err := os.ReadFile(sums)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{deb, rpm} {
		if !strings.Contains(string(b), "  "+filepath.Base(p)+"\n") {
			t.Errorf("%s does not list %s:\n%s", sums, p, b)
		}
	}
	check := exec.Command(need(t, "sha256sum", "coreutils"), "-c", ChecksumFile)
	check.Dir = filepath.Dir(sums)
	if out, err := check.CombinedOutput(); err != nil || strings.Count(string(out), ": OK") != 2 {
		t.Errorf("sha256sum -c: %v\n%s", err, out)
	}
}

func run1(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

// The packaged unit is one systemd accepts without a warning (systemd-analyze verify prints
// unknown keys and bad values but exits 0 for them), and keeps its state folder owned and 0700
// with its settings in the environment file. Only ExecStart's path is moved, to the binary
// unpacked here, as verify checks that it exists.
func TestUnitVerifies(t *testing.T) {
	deb, _, _ := packages(t)
	analyze := need(t, "systemd-analyze", "systemd")
	root := t.TempDir()
	run1(t, "dpkg-deb", "-x", deb, root)
	unit, err := os.ReadFile(filepath.Join(root, UnitPath))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nUser=kupgrade\n", "\nStateDirectory=kupgrade\n", "\nStateDirectoryMode=0700\n",
		"\nEnvironmentFile=" + EnvPath + "\n", "\nExecStart=" + BinPath + " watch --create-db\n"} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("%s lacks %q", UnitPath, strings.TrimSpace(want))
		}
	}
	moved := strings.Replace(string(unit), "ExecStart="+BinPath, "ExecStart="+filepath.Join(root, BinPath), 1)
	path := filepath.Join(t.TempDir(), filepath.Base(UnitPath))
	if err := os.WriteFile(path, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--man=no", path).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify %s: %v\n%s", UnitPath, err, out)
	}
}
