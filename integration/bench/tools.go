package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/runner"
)

// Tool names, as the table prints them.
const (
	toolAnsible  = "ansible-playbook"
	toolKupgrade = "kupgrade play"
	toolBound    = "sshconn, no playbook"
	toolBare     = "bare x/crypto/ssh"
)

// measure is one run of one tool: wall and client CPU time, and why it failed if it did.
type measure struct {
	Wall, CPU time.Duration
	Err       error
}

// runChild runs a tool as a child process and measures it. Its CPU time is the child's rusage:
// its own and that of the descendants it waited for.
func runChild(ctx context.Context, cmd *exec.Cmd) (measure, []byte) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	m := measure{Wall: time.Since(start)}
	if cmd.ProcessState != nil {
		m.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		m.Err = fmt.Errorf("%s: %w\n%s", cmd.Args[0], err, tail(out.String(), 2000))
	}
	if ctx.Err() != nil {
		m.Err = ctx.Err()
	}
	return m, out.Bytes()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// childEnv is the environment of every tool: no ssh-agent, so each tool uses the key file of
// the inventory and nothing else.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SSH_AUTH_SOCK=") && !strings.HasPrefix(kv, "ANSIBLE_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

func runKupgrade(ctx context.Context, bin string, w *workspace, n int) measure {
	return runKupgradeOn(ctx, bin, w, w.Playbook, n)
}

func runKupgradeOn(ctx context.Context, bin string, w *workspace, playbook string, n int) measure {
	cmd := exec.CommandContext(ctx, bin, "-i", w.Inventory, "--known-hosts", w.KnownHosts,
		"play", playbook, "--forks", strconv.Itoa(n), "-o", "json")
	cmd.Env = childEnv()
	m, out := runChild(ctx, cmd)
	if m.Err == nil {
		m.Err = checkKupgradeRecap(out, n)
	}
	return m
}

// checkKupgradeRecap reads the play_recap event: every host must be there, none failed or
// unreachable.
func checkKupgradeRecap(out []byte, n int) error {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			Event runner.EventKind `json:"event"`
			Recap map[string]struct {
				Failed      int `json:"failed"`
				Unreachable int `json:"unreachable"`
			} `json:"recap"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Event != runner.EventPlayRecap {
			continue
		}
		ok := 0
		for _, h := range ev.Recap {
			if h.Failed == 0 && h.Unreachable == 0 {
				ok++
			}
		}
		if ok != n {
			return fmt.Errorf("kupgrade: %d of %d hosts ok in the recap", ok, n)
		}
		return nil
	}
	return fmt.Errorf("kupgrade: no play_recap event in its output:\n%s", tail(string(out), 2000))
}

// runAnsible runs ansible-playbook; its CPU time includes the ssh ControlPersist masters it
// leaves behind, which do its SSH crypto.
func runAnsible(ctx context.Context, w *workspace, n int) measure {
	cmd := exec.CommandContext(ctx, "ansible-playbook", "-i", w.Inventory, "--forks", strconv.Itoa(n), w.Playbook)
	cmd.Env = childEnv("ANSIBLE_CONFIG="+w.AnsibleCfg, "ANSIBLE_NOCOLOR=1")
	m, out := runChild(ctx, cmd)
	m.CPU += mastersCPU(w.ControlDir)
	if m.Err == nil {
		m.Err = checkAnsibleRecap(out, n)
	}
	return m
}

var ansibleRecapLine = regexp.MustCompile(`(?m)^(\S+)\s+:\s+ok=\d+.*\bunreachable=(\d+)\s+failed=(\d+)`)

// checkAnsibleRecap reads PLAY RECAP: every host must be there, none failed or unreachable.
func checkAnsibleRecap(out []byte, n int) error {
	ok := 0
	for _, m := range ansibleRecapLine.FindAllSubmatch(out, -1) {
		if string(m[2]) == "0" && string(m[3]) == "0" {
			ok++
		}
	}
	if ok != n {
		return fmt.Errorf("ansible-playbook: %d of %d hosts ok in PLAY RECAP:\n%s", ok, n, tail(string(out), 2000))
	}
	return nil
}
