package playbooks

import (
	"regexp"
	"strings"
	"testing"
)

// Every variable the workflow hands a shipped playbook for it to use is used by it, and every
// result the workflow reads back is registered by it: a renamed variable on either side fails
// here rather than silently in a lab.
func TestSharedVariables(t *testing.T) {
	cases := []struct {
		playbook  string
		uses      []string
		registers []string
	}{
		{"control-plane", []string{VarToVersion, VarFirstController, VarKubeadmTimeout, VarKcfgBefore, VarBackupTags, VarBackupExisting}, []string{VarKcfgAfter}},
		{"abort", []string{VarAbortRestore, VarAbortClusterConfig, VarFromVersion}, nil},
		{"etcd-snapshot", []string{VarEtcdSnapshotScript}, []string{VarEtcdSnapshot}},
		{"etcd-restore", []string{VarEtcdRestoreScript, VarEtcdRestoreFile, VarEtcdRestoreDest}, []string{VarEtcdRestore}},
		{"kubelet", []string{VarToVersion, VarKubeadmTimeout, VarDrainTimeout, VarKubeletBack, VarUpgrade, VarCordonMark}, []string{VarKubeletVersion}},
		{"download-images", []string{VarImageVersions, VarKubeadmTimeout}, nil},
	}
	for _, tc := range cases {
		pb, err := Embedded(tc.playbook)
		if err != nil {
			t.Fatal(err)
		}
		data, err := shipped.ReadFile(tc.playbook + ".yml")
		if err != nil {
			t.Fatal(err)
		}
		code := withoutComments(string(data))
		for _, v := range tc.uses {
			if !regexp.MustCompile(`\b` + v + `\b`).MatchString(code) {
				t.Errorf("%s does not use %s, which the workflow hands it", tc.playbook, v)
			}
		}
		registered := map[string]bool{}
		for _, p := range pb.Plays {
			registers(p.Tasks, registered)
		}
		for _, v := range tc.registers {
			if !registered[v] {
				t.Errorf("%s does not register %s, which the workflow reads back", tc.playbook, v)
			}
		}
	}
}

func registers(tasks []*Task, into map[string]bool) {
	for _, t := range tasks {
		if t.Register != "" {
			into[t.Register] = true
		}
		registers(t.Block, into)
		registers(t.Rescue, into)
		registers(t.Always, into)
	}
}

// withoutComments drops the YAML comment lines, which name variables without using them.
func withoutComments(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line)
		}
	}
	return b.String()
}
