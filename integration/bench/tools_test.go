//go:build integration

package main

import "testing"

// A run where a host failed must not be reported as a measurement.
func TestRecapChecks(t *testing.T) {
	const ansibleOK = `PLAY RECAP *********************************************************************
h001                       : ok=12   changed=1    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0
h002                       : ok=12   changed=1    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0
`
	const ansibleFailed = `PLAY RECAP *********************************************************************
h001                       : ok=12   changed=1    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0
h002                       : ok=3    changed=0    unreachable=0    failed=1    skipped=0    rescued=0    ignored=0
`
	const kupgradeOK = `{"time":"2026-01-01T00:00:00Z","event":"task_ok","host":"h001","task":"true 1"}
{"time":"2026-01-01T00:00:01Z","event":"play_recap","host":"","task":"","recap":{"h001":{"ok":12,"changed":1,"failed":0,"skipped":0,"unreachable":0,"rescued":0,"ignored":0},"h002":{"ok":12,"changed":1,"failed":0,"skipped":0,"unreachable":0,"rescued":0,"ignored":0}}}
`
	const kupgradeUnreachable = `{"time":"2026-01-01T00:00:01Z","event":"play_recap","host":"","task":"","recap":{"h001":{"ok":12,"failed":0,"unreachable":0},"h002":{"ok":0,"failed":0,"unreachable":1}}}
`
	tests := []struct {
		name   string
		check  func([]byte, int) error
		out    string
		wantOK bool
	}{
		{"ansible all ok", checkAnsibleRecap, ansibleOK, true},
		{"ansible one failed", checkAnsibleRecap, ansibleFailed, false},
		{"ansible no recap", checkAnsibleRecap, "ERROR! the playbook could not be found", false},
		{"kupgrade all ok", checkKupgradeRecap, kupgradeOK, true},
		{"kupgrade one unreachable", checkKupgradeRecap, kupgradeUnreachable, false},
		{"kupgrade no recap", checkKupgradeRecap, "kupgrade: inventory.yml:1:1: bad", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.check([]byte(tt.out), 2); (err == nil) != tt.wantOK {
				t.Errorf("check = %v, want ok %v", err, tt.wantOK)
			}
		})
	}
}
