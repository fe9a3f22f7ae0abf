package kubeadm_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/kubeadm"
)

// The probe reads what an interrupted package install left (the packages it unheld, an install
// still running in its own session), and the finding then says the packages need repair, never
// that the host needs none. A host where nothing is left has no packages record.
func TestProbeReadsThePackagesLeftUnheld(t *testing.T) {
	n := newNode(t, false)
	s, err := kubeadm.Prober{Root: n.root}.Probe(t.Context(), localExec)
	if err != nil || s.Packages != nil {
		t.Fatalf("a host with nothing left: %+v, %v; want no packages record", s.Packages, err)
	}
	dir := filepath.Join(n.root, kubeadm.PackagesDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "unheld"), []byte("kubelet kubectl\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "install.pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	after, err := kubeadm.Prober{Root: n.root}.Probe(t.Context(), localExec)
	if err != nil {
		t.Fatal(err)
	}
	if want := (&kubeadm.Packages{Unheld: []string{"kubelet", "kubectl"}, Installing: true}); !reflect.DeepEqual(after.Packages, want) {
		t.Fatalf("packages %+v, want %+v", after.Packages, want)
	}
	f := kubeadm.Classify(s, after, "v1.30.1")
	if strings.Contains(f.Next, "needs no repair") || !strings.Contains(f.Summary, "kubelet, kubectl left unheld") || !strings.Contains(f.Next, "packages need the repair") {
		t.Errorf("finding %q / %q: want the packages' repair, not \"needs no repair\"", f.Summary, f.Next)
	}
}
