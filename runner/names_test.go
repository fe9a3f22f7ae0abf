package runner_test

import (
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// People read "Upgrade to v1.30.1", not the template; a name that needs host variables stays as
// written rather than failing the play.
func TestNamesAreRenderedForPeople(t *testing.T) {
	_, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- name: Upgrade to {{ to_version }}
  hosts: all
  vars: {what: kubelet}
  tasks:
    - name: Install the {{ what }} {{ to_version }}
      command: "true"
    - name: On {{ inventory_hostname }}
      command: "true"
`, runner.PlayOptions{ExtraVars: map[string]any{"to_version": "v1.30.1"}})
	if err != nil {
		t.Fatal(err)
	}
	var play string
	for _, e := range rec.events {
		if e.Event == runner.EventPlayStart {
			play = e.Msg
		}
	}
	if play != "Upgrade to v1.30.1" {
		t.Errorf("play name shown as %q, want %q", play, "Upgrade to v1.30.1")
	}
	if _, ok := rec.find("h1", "Install the kubelet v1.30.1"); !ok {
		t.Errorf("task name not rendered: events %v", rec.results("h1"))
	}
	if _, ok := rec.find("h1", "On {{ inventory_hostname }}"); !ok {
		t.Errorf("a name needing host vars should stay as written: events %v", rec.results("h1"))
	}
}
