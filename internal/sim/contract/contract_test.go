package contract_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/internal/sim"
	"github.com/kupgrade/kupgrade/internal/sim/contract"
)

// simNode is the contract's node on a simulated host: the one controller of a simulated cluster.
type simNode struct {
	f *sim.Fleet
	h *sim.Host
}

func (n simNode) Reset(_ context.Context, s contract.Setup) error {
	n.h.Reset(sim.Layout{Version: s.Version, Kubeadm: s.Kubeadm, Controller: !s.Worker})
	n.f.Clusters[0].SetVersion(s.Cluster)
	if s.Fault != nil {
		return n.h.InjectFault(*s.Fault)
	}
	return nil
}

func (n simNode) Target() (string, string) {
	return filepath.Join(n.f.Inventories, n.f.Clusters[0].Name+".yml"), n.h.Name
}

func (n simNode) ReadFile(_ context.Context, p string) (string, bool, error) {
	s, ok := n.h.File(p)
	return s, ok, nil
}

func (n simNode) ReadDir(_ context.Context, p string) ([]string, error) { return n.h.ReadDir(p), nil }

func TestContract(t *testing.T) {
	f, err := sim.Start(sim.Options{Clusters: 1, Controllers: 1, From: contract.From, To: contract.From, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	contract.Run(t, simNode{f, f.Clusters[0].Hosts[0]})
}
