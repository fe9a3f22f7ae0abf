package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
)

// A mistyped flag or command is refused as bad input with the nearest name (kong's own
// suggestion, kept by this test).
func TestDidYouMeanFlagsAndCommands(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"host", "list", "--wdie"}, `unknown flag --wdie, did you mean "--wide"?`},
		{[]string{"upgrade", "shwo"}, `did you mean "show"?`},
		{[]string{"fleet", "run", "--to", "v1.30.1", "--max-paralel", "3"}, `did you mean "--max-parallel"?`},
		// the hidden StarlingX aliases, which kong leaves out of its suggestions
		{[]string{"kube-upgrade-strat", "v1.30.1"}, `unexpected argument kube-upgrade-strat, did you mean "kube-upgrade-start"?`},
		{[]string{"kube-host-upgrad", "controller-0", "kubelet"}, `did you mean "kube-host-upgrade"?`},
		// StarlingX's `system` before one: the same command without it
		{[]string{"system", "kube-upgrade-networking"}, `did you mean "kupgrade kube-upgrade-networking"?`},
		// an argument outside its choices
		{[]string{"host", "upgrade", "controller-0", "kubelt"}, `but got "kubelt", did you mean "kubelet"?`},
	} {
		code, _, errOut := run(t, tc.args...)
		if code != exitBadInput || !strings.Contains(errOut, tc.want) {
			t.Errorf("kupgrade %s = %d, %q; want exit 2 and %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
	for _, far := range [][]string{{"host", "list", "--zzzzzzzz"}, {"zzzzzzzz"}, {"host", "upgrade", "controller-0", "zzzzzzzz"}} {
		if _, _, errOut := run(t, far...); strings.Contains(errOut, "did you mean") {
			t.Errorf("kupgrade %s: a word near nothing got a suggestion: %q", strings.Join(far, " "), errOut)
		}
	}
}

// --help lists the states a --until takes; completion offers them, and the inventory's hosts
// where a host is typed.
func TestStatesAndHostsOfferedByHelpAndCompletion(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("hosts.ini", []byte("[controllers]\ncontroller-0\ncontroller-1\n[workers]\nworker-0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, out, _ := run(t, "upgrade", "run", "--help"); !strings.Contains(out, "upgraded-networking") || !strings.Contains(out, "upgrade-complete") {
		t.Errorf("upgrade run --help lists no state:\n%s", out)
	}
	if _, out, _ := run(t, "-i", "hosts.ini", "host", "upgrade", "--help"); !strings.Contains(out, "controller-0, controller-1, worker-0") {
		t.Errorf("host upgrade --help does not list the inventory's hosts:\n%s", out)
	}
	for line, want := range map[string]string{
		"kupgrade upgrade run --until upgraded-n":         "upgraded-networking",
		"kupgrade -i hosts.ini host upgrade contr":        "controller-1",
		"kupgrade --inventory hosts.ini host cordon work": "worker-0",
	} {
		t.Setenv("COMP_LINE", line)
		t.Setenv("COMP_POINT", itoa(len(line)))
		if _, out, _ := run(t); !strings.Contains(out, want) {
			t.Errorf("completing %q offers %q, want %s", line, out, want)
		}
	}
}

// A host name that looks like a typo of an inventory host is refused, naming it.
func TestHostDidYouMean(t *testing.T) {
	inv := filepath.Join(t.TempDir(), "hosts.ini")
	if err := os.WriteFile(inv, []byte("[controllers]\ncontroller-0\ncontroller-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := newApp(&Globals{Inventory: []string{inv}, LogLevel: "info"}, strings.NewReader(""), io.Discard, io.Discard)
	_, err := a.hostArg(t.Context(), "controler-1")
	if !errors.Is(err, state.ErrBadInput) || !strings.Contains(err.Error(), `did you mean "controller-1"?`) {
		t.Errorf("hostArg(controler-1) = %v", err)
	}
	if h, err := a.hostArg(t.Context(), "controller-1"); h != "controller-1" || err != nil {
		t.Errorf("hostArg(controller-1) = %q, %v", h, err)
	}
}
