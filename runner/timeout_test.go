package runner_test

import (
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// A command its timeout stops registers what a command registers (rc 124, stdout, stderr) and a
// message with the real timeout: an until that reads rc and stderr, as the control-plane
// playbook's kubeadm task does, judges it instead of failing on a missing key.
func TestTimedOutCommandRegistersItsTimeout(t *testing.T) {
	recap, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: kubeadm upgrade
      command: sleep 60
      timeout: 1
      register: kubeadm
      until: kubeadm.rc == 0 or '[ERROR CreateJob]' not in kubeadm.stderr
      retries: 3
      delay: 0
`, runner.PlayOptions{})
	if err == nil || len(recap.Failures) != 1 {
		t.Fatalf("want one timeout failure, got %v", err)
	}
	res := recap.Failures[0].TaskResult()
	if !res.TimedOut || res.RC == nil || *res.RC != 124 || res.Msg != "timed out after 1s" {
		t.Errorf("registered %+v (rc %v), want timedout, rc 124, msg \"timed out after 1s\"", res, res.RC)
	}
	if e, _ := rec.find("h1", "kubeadm upgrade"); e.Msg != "timed out after 1s" {
		t.Errorf("event message %q", e.Msg)
	}
}

func TestTimeoutMessageHasTheRealDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{15 * time.Minute: "15m", time.Hour: "1h",
		90 * time.Minute: "1h30m", 90 * time.Second: "1m30s", time.Second: "1s"} {
		if got := runner.ShortDuration(d); got != want {
			t.Errorf("%v prints %q, want %q", d, got, want)
		}
	}
}
