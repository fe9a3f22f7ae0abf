package sim

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner/sshconn"
)

// sshRun runs cmd on host h of f's first cluster through kupgrade's own SSH client, as the
// runner does, on a connection of its own.
func sshRun(ctx context.Context, t *testing.T, f *Fleet, h *Host, cmd string, stdout io.Writer) (int, string, error) {
	t.Helper()
	inv, err := inventory.Load(filepath.Join(f.Inventories, f.Clusters[0].Name+".yml"))
	if err != nil {
		t.Fatal(err)
	}
	ih, ok := inv.Host(h.Name)
	if !ok {
		t.Fatalf("no host %s in the inventory", h.Name)
	}
	c, err := (&sshconn.Dialer{KnownHosts: f.KnownHosts}).Dial(ctx, ih)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var errb bytes.Buffer
	rc, err := c.Run(ctx, cmd, nil, stdout, &errb)
	return rc, errb.String(), err
}

func inject(t *testing.T, h *Host, f Fault) {
	t.Helper()
	if err := h.InjectFault(f); err != nil {
		t.Fatal(err)
	}
}

// kubeletConfigOf is the version the host's kubelet config was written for.
func kubeletConfigOf(h *Host) string {
	s, _ := h.File(kubeletConfig)
	_, v, _ := strings.Cut(s, "Written by kubeadm ")
	return strings.Fields(v)[0]
}

// An exit fails kubeadm with its status and kubeadm's lines, after the phase's work; it stays
// armed, so the next run fails too.
func TestFaultExit(t *testing.T) {
	f := newTestFleet(t)
	c0 := f.Clusters[0].Hosts[0]
	inject(t, c0, Fault{Phase: "kubelet-config", Action: Exit, Status: 3})
	for range 2 {
		rc, errs, err := sshRun(t.Context(), t, f, c0, "sudo -n kubeadm upgrade apply v1.30.1 -y", nil)
		if err != nil || rc != 3 || !strings.Contains(errs, "error execution phase kubelet-config: failure injected by kupgrade sim (exit status 3)\n") {
			t.Fatalf("rc %d, %v, %s", rc, err, errs)
		}
	}
	if v := kubeletConfigOf(c0); v != "v1.30.1" {
		t.Errorf("kubelet config written for %s, want v1.30.1 (the fault fires after the phase)", v)
	}
}

// An exit in preflight names its check; with once, it fires once and a retry succeeds.
func TestFaultPreflightOnce(t *testing.T) {
	f := newTestFleet(t)
	c0 := f.Clusters[0].Hosts[0]
	inject(t, c0, Fault{Phase: "preflight", Before: true, Action: Exit, Once: true, Check: "Swap"})
	rc, errs, err := sshRun(t.Context(), t, f, c0, "kubeadm upgrade apply v1.30.1 -y", nil)
	if err != nil || rc != 1 || !strings.Contains(errs, "\t[ERROR Swap]: failure injected by kupgrade sim\n") {
		t.Fatalf("rc %d, %v, %s", rc, err, errs)
	}
	if _, ok := c0.File(FaultFile); ok {
		t.Error("a once fault is still armed after it fired")
	}
	if rc, errs, err := sshRun(t.Context(), t, f, c0, "kubeadm upgrade apply v1.30.1 -y", nil); rc != 0 || err != nil {
		t.Errorf("the retry: rc %d, %v, %s", rc, err, errs)
	}
}

// signalOn is a writer that closes seen once what was written contains s.
type signalOn struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	s    string
	seen chan struct{}
}

func (w *signalOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.s) && w.seen != nil {
		close(w.seen)
		w.seen = nil
	}
	return len(p), nil
}

// A hang holds kubeadm until its session ends: the client's cancel stops it, with nothing of the
// next phases done.
func TestFaultHang(t *testing.T) {
	f := newTestFleet(t)
	c0 := f.Clusters[0].Hosts[0]
	inject(t, c0, Fault{Phase: "control-plane", Action: Hang})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	seen := make(chan struct{})
	go func() { <-seen; cancel() }()
	out := &signalOn{s: `Component "kube-scheduler" upgraded successfully!`, seen: seen}
	_, errs, err := sshRun(ctx, t, f, c0, "kubeadm upgrade apply v1.30.1 -y", out)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want the cancel (%s)", err, errs)
	}
	if n := c0.running.Load(); n != 0 {
		t.Errorf("%d kubeadm still running once the client gave up", n)
	}
	if v := kubeletConfigOf(c0); v != "v1.29.4" {
		t.Errorf("kubelet config written for %s: the phases after the hang ran", v)
	}
}

// A drop closes the connection under the command: the client sees it lost, and kubeadm stopped
// before the phase it was armed in.
func TestFaultDrop(t *testing.T) {
	f := newTestFleet(t)
	c0 := f.Clusters[0].Hosts[0]
	inject(t, c0, Fault{Phase: "kubelet-config", Before: true, Action: Drop})
	_, errs, err := sshRun(t.Context(), t, f, c0, "kubeadm upgrade apply v1.30.1 -y", nil)
	if !sshconn.IsClass(err, sshconn.Closed) {
		t.Fatalf("err %v, want a lost connection (%s)", err, errs)
	}
	if v := kubeletConfigOf(c0); v != "v1.29.4" {
		t.Errorf("kubelet config written for %s: kubeadm went on after the drop", v)
	}
	if s, _ := c0.File(manifests + "/kube-apiserver.yaml"); !strings.Contains(s, ":v1.30.1\n") {
		t.Error("the control plane was not upgraded before the drop")
	}
}

// A delay waits, then kubeadm goes on as if nothing happened.
func TestFaultDelay(t *testing.T) {
	f := newTestFleet(t)
	c0 := f.Clusters[0].Hosts[0]
	inject(t, c0, Fault{Phase: "addon", Action: Delay, Seconds: 1})
	var out bytes.Buffer
	rc, errs, err := sshRun(t.Context(), t, f, c0, "kubeadm upgrade apply v1.30.1 -y", &out)
	if rc != 0 || err != nil || !strings.Contains(out.String(), "[upgrade/successful] SUCCESS!") {
		t.Fatalf("rc %d, %v, %s%s", rc, err, out.String(), errs)
	}
}

// The fault file is the lab's: what InjectFault writes reads back as the same fault.
func TestFaultFileRoundTrip(t *testing.T) {
	for _, f := range []Fault{
		{Phase: "preflight", Before: true, Action: Exit, Status: 4, Check: "Swap", Once: true},
		{Phase: "addon", Action: Delay, Seconds: 3},
		{Phase: "config", Action: Hang},
	} {
		want := f.withDefaults()
		if want.Check == "" {
			want.Check = "LabFault"
		}
		if got := parseFault(f.String()); got != want {
			t.Errorf("%+v read back as %+v", want, got)
		}
	}
	if err := (Fault{Phase: "kubelet-status", Action: Exit}).Validate(); err == nil {
		t.Error("a phase the simulator has not was accepted")
	}
}
