package model

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// check is one Spin verification run of lease.pml, hops.pml or phases.pml.
type check struct {
	model  string // the .pml file: "" is lease.pml
	define string // a -D flag for spin selecting a variant, "" for the real model
	live   bool   // L1 with acceptance cycles under weak fairness, else the safety assertions
}

// report is what pan said.
type report struct {
	out    string
	errors int
	stored string // states stored
	depth  string
	time   string // seconds, pan's own measure
}

var (
	errorsRe = regexp.MustCompile(`errors: (\d+)`)
	storedRe = regexp.MustCompile(`(\d+) states, stored`)
	depthRe  = regexp.MustCompile(`depth reached (\d+)`)
	timeRe   = regexp.MustCompile(`elapsed time ([0-9.e+]+) seconds`)
)

// needSpin skips the test, saying why, when spin or gcc is missing (`make unit` installs
// nothing), and fails it then under CI=true, where `make deps` has run; KUPGRADE_NO_SPIN=1 skips.
func needSpin(t *testing.T) {
	t.Helper()
	if os.Getenv("KUPGRADE_NO_SPIN") == "1" {
		t.Skip("KUPGRADE_NO_SPIN=1: the lease model is not checked")
	}
	if testing.Short() {
		t.Skip("-short (make check): the lease model is checked by make test")
	}
	for _, tool := range []string{"spin", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			msg := tool + " is not installed: `make deps` installs spin and gcc (or set KUPGRADE_NO_SPIN=1 to skip)"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

// verify generates, compiles and runs the verifier for c in a temporary directory.
func verify(t *testing.T, c check) report {
	t.Helper()
	needSpin(t)
	dir := t.TempDir()
	model := cmp.Or(c.model, "lease.pml")
	src, err := os.ReadFile(model)
	if err != nil {
		t.Fatalf("read model: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, model), src, 0o644); err != nil {
		t.Fatalf("copy model: %v", err)
	}
	var defs []string // the same for generating and for replaying, so both follow the variant
	if c.define != "" {
		defs = []string{"-D" + c.define}
	}
	// Safety runs leave the never claim out; liveness needs room for fairness over 10 processes
	// and the claim (-DNFAIR=4), then -a looks for acceptance cycles and -f assumes weak fairness.
	// A broken variant stops at its first error: compiling it without optimisation is quicker.
	opt := "-O2"
	if c.define != "" {
		opt = "-O0"
	}
	gccArgs := []string{opt, "-DSAFETY", "-DNOCLAIM", "-o", "pan", "pan.c"}
	var panArgs []string
	if c.live {
		gccArgs = []string{opt, "-DNFAIR=4", "-o", "pan", "pan.c"}
		panArgs = []string{"-a", "-f"}
	}
	mustRun(t, dir, "spin", append(defs, "-a", model)...)
	mustRun(t, dir, "gcc", gccArgs...)
	// pan's exit status says nothing reliable about errors: its report does.
	out, _ := output(t, dir, "./pan", panArgs...)
	r := report{out: string(out)}
	m := errorsRe.FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("pan printed no error count:\n%s", out)
	}
	r.errors, _ = strconv.Atoi(m[1])
	r.stored, r.depth, r.time = first(storedRe, r.out), first(depthRe, r.out), first(timeRe, r.out)
	if strings.Contains(r.out, "max search depth too small") {
		t.Fatalf("the search was cut short (raise -m):\n%s", out)
	}
	if r.errors > 0 {
		trail, _ := output(t, dir, "spin", append(defs, "-t", "-p", "-g", model)...)
		r.out += "\ncounterexample (spin -t -p -g):\n" + trail
	}
	return r
}

func output(t *testing.T, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustRun(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	if out, err := output(t, dir, name, args...); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func first(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return "?"
}

// TestModelHolds proves the real protocol: no assertion fails and no process is left blocked in
// any reachable state (S1-S4 and the invariant), and L1 has no fair acceptance cycle.
func TestModelHolds(t *testing.T) {
	for _, c := range []struct {
		name string
		live bool
	}{{"safety", false}, {"liveness", true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			requireHolds(t, check{live: c.live}, "the lease protocol", c.name)
		})
	}
}

// TestBrokenVariantsFail takes one guarantee away at a time and expects Spin to find the
// violation it protects against: none of the properties holds only because the model is too
// weak to reach the case.
func TestBrokenVariantsFail(t *testing.T) {
	for _, c := range []struct {
		define string
		live   bool
		want   string // in pan's report
	}{
		{"NOFENCE", false, "assertion violated (nk<=1)"},      // S1: two kubeadm at once
		{"NOSTAMP", false, "assertion violated (g>=maxk)"},    // S3: a stale kubeadm after a newer one
		{"NOCAS", false, "assertion violated (g==gen)"},       // S2: a stale runner overwrites
		{"LOCALCLOCK", false, "assertion violated  !(llive)"}, // S4: a live lease failed
		{"NOWATCH", true, "acceptance cycle"},                 // L1: a killed runner's state stays in flight
	} {
		t.Run(c.define, func(t *testing.T) {
			t.Parallel()
			r := verify(t, check{define: c.define, live: c.live})
			if r.errors == 0 || !strings.Contains(r.out, c.want) {
				t.Fatalf("-D%s: want %q and at least one error, Spin reported %d:\n%s", c.define, c.want, r.errors, r.out)
			}
			t.Logf("-D%s fails as it must: %s", c.define, c.want)
		})
	}
}

// requireHolds has Spin verify c and fails the test on any error Spin finds in what, or when pan
// explored no state at all; it logs the states, depth and time under name.
func requireHolds(t *testing.T, c check, what, name string) {
	t.Helper()
	r := verify(t, c)
	if r.errors != 0 {
		t.Fatalf("Spin found %d error(s) in %s:\n%s", r.errors, what, r.out)
	}
	if r.stored == "?" || r.stored == "0" {
		t.Fatalf("pan explored no states:\n%s", r.out)
	}
	t.Logf("%s: %s states stored, depth %s, %s s", name, r.stored, r.depth, r.time)
}
