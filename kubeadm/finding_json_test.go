package kubeadm

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFindingClassKeepsItsJSON: the finding class is typed, and the events' evidence still
// stores it as the plain string `recover` and the audit read back.
func TestFindingClassKeepsItsJSON(t *testing.T) {
	b, err := json.Marshal(Finding{Class: FindingConfigRewritten})
	if err != nil || !strings.Contains(string(b), `"class":"kubelet-config-rewritten"`) {
		t.Fatalf("finding: %s (%v)", b, err)
	}
	var back Finding
	if err := json.Unmarshal(b, &back); err != nil || back.Class != FindingConfigRewritten {
		t.Fatalf("read back: %+v (%v)", back, err)
	}
}
