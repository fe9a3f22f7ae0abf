package recovery_test

import (
	"context"
	"errors"
	"sync"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/state"
)

// fakeProber answers from a table; hosts it does not know are unreachable.
type fakeProber struct {
	mu       sync.Mutex
	findings map[string]kubeadm.Finding
	calls    []string
}

type unreachableError struct{ host string }

func (e unreachableError) Error() string        { return "dial " + e.host + ": connection refused" }
func (e unreachableError) Is(target error) bool { return target == fault.ErrUnreachable }

func (p *fakeProber) Probe(ctx context.Context, host, target string) (kubeadm.Finding, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, host+"@"+target)
	if f, ok := p.findings[host]; ok {
		return f, nil
	}
	return kubeadm.Finding{}, unreachableError{host}
}

var lateFinding = kubeadm.Finding{Class: kubeadm.FindingConfigRewritten,
	Summary: "/var/lib/kubelet/config.yaml was rewritten after kubeadm's backup.",
	Next:    "retry the step: kubeadm skips manifests already at the target"}

func isConflict(err error) bool { return errors.Is(err, state.ErrConflict) }
