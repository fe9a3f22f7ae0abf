//go:build integration

package integration_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/internal/shellword"
)

// unitService is what a lab node can run of a systemd unit's [Service] section. The lab image
// has no systemd (its PID 1 is sshd), so a test that installs kupgrade's package starts the
// service as systemd would from these lines: the state folder made with its owner and mode, the
// environment from Environment= then EnvironmentFile=, the user, umask and working folder, then
// ExecStart. systemd-analyze verify checks the unit itself (internal/pkgbuild's tests).
type unitService struct {
	user, group, stateDir, stateMode, workDir, umask string
	exec                                             []string
	env                                              []string // Environment=, in order
	envFiles                                         []string
}

// unitNotEmulated are the [Service] keys a lab node does not enact: the type, restarts and the
// sandbox. Any other key the unit gains fails the test until it is emulated or listed here.
var unitNotEmulated = map[string]bool{"Type": true, "Restart": true, "RestartSec": true,
	"NoNewPrivileges": true, "ProtectSystem": true, "PrivateTmp": true}

func parseUnit(t *testing.T, path, text string) unitService {
	t.Helper()
	var s unitService
	section := ""
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		key, value, _ := strings.Cut(line, "=")
		if section == "[Service]" && !s.set(key, value) && !unitNotEmulated[key] {
			t.Fatalf("%s:%d: %s= is not emulated on a lab node: emulate it in integration/unit_service_test.go or list it in unitNotEmulated", path, i+1, key)
		}
	}
	return s
}

func (s *unitService) set(key, value string) bool {
	fields := map[string]*string{"User": &s.user, "Group": &s.group, "StateDirectory": &s.stateDir,
		"StateDirectoryMode": &s.stateMode, "WorkingDirectory": &s.workDir, "UMask": &s.umask}
	switch {
	case fields[key] != nil:
		*fields[key] = value
	case key == "Environment":
		s.env = append(s.env, value)
	case key == "EnvironmentFile":
		s.envFiles = append(s.envFiles, value)
	case key == "ExecStart":
		s.exec = strings.Fields(value)
	default:
		return false
	}
	return true
}

// environment is the service's environment: systemd's PATH, Environment= lines, then each
// EnvironmentFile= read on the node (its VAR=value lines; later ones win).
func (s unitService) environment(t *testing.T, n *lab.Node) []string {
	t.Helper()
	env := append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, s.env...)
	for _, f := range s.envFiles {
		text := nodeExec(t, n, "cat", f)
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if line != "" && line[0] != '#' && line[0] != ';' && strings.Contains(line, "=") {
				env = append(env, line)
			}
		}
	}
	return env
}

// start starts the service in the background on n and returns its PID; its output goes to
// /var/log/kupgrade-lab/UNIT.log.
func (s unitService) start(t *testing.T, n *lab.Node, unit string) string {
	t.Helper()
	state := "/var/lib/" + s.stateDir
	nodeExec(t, n, "install", "-d", "-m", s.stateMode, "-o", s.user, "-g", s.group, state)
	var env []string
	for _, e := range s.environment(t, n) {
		env = append(env, shellword.Quote(e))
	}
	var args []string
	for _, a := range s.exec {
		args = append(args, shellword.Quote(a))
	}
	script := fmt.Sprintf("cd %s && umask %s && setpriv --reuid=%s --regid=%s --init-groups env -i %s %s </dev/null >/var/log/kupgrade-lab/%s.log 2>&1 & echo $!",
		shellword.Quote(s.workDir), s.umask, s.user, s.group, strings.Join(env, " "), strings.Join(args, " "), unit)
	return strings.TrimSpace(nodeExec(t, n, "sh", "-c", script))
}

func nodeExec(t *testing.T, n *lab.Node, cmd ...string) string {
	t.Helper()
	out, err := n.Exec(t.Context(), cmd...)
	if err != nil {
		t.Fatalf("%s: %s: %v\n%s", n.Name, strings.Join(cmd, " "), err, out)
	}
	return out
}
