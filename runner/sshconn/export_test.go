package sshconn

import (
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// AgentModes are the ways Run reaches a host: an agent under bash (job control, the argv fast
// path), an agent under sh (setsid), and a session per command, which is what a host gets
// whose shell does not start the agent.
var AgentModes = []string{"bash agent", "sh agent", "session per command"}

// A DialOption changes how the clients a test's Dialer dials start their agents.
type DialOption func(*Dialer)

// AgentMode makes the Dialer's clients run commands in mode, one of AgentModes.
func AgentMode(tb testing.TB, mode string) DialOption {
	var start string
	switch mode {
	case "bash agent":
	case "sh agent":
		start = "a=" + shellword.Quote(agentScript) + `; exec sh -c "$a" sh`
	case "session per command":
		start = "echo this shell runs no agent"
	default:
		tb.Fatalf("unknown agent mode %q", mode)
	}
	return func(d *Dialer) { d.agents.start = start }
}

// GreetBeforeAgent makes the login shell print greeting before it starts the agent, as some
// hosts' shell start-up files do.
func GreetBeforeAgent(greeting string) DialOption {
	return func(d *Dialer) {
		d.agents.start = "printf %s " + shellword.Quote(greeting) + "; " + d.agents.orDefaults().start
	}
}

// StallBeforeAgent makes the login shell sleep before it starts the agent, and the client wait
// for its banner only for wait.
func StallBeforeAgent(wait time.Duration) DialOption {
	return func(d *Dialer) {
		d.agents.start = "sleep 30; " + d.agents.orDefaults().start
		d.agents.bannerWait = wait
	}
}

// LiveIdleAgents counts the idle agents whose session has not ended.
func (c *Client) LiveIdleAgents() int {
	c.agentMu.Lock()
	defer c.agentMu.Unlock()
	n := 0
	for _, a := range c.idle {
		if a.alive() {
			n++
		}
	}
	return n
}

// RunBareSession runs cmd in a session of its own with nothing around it, as a plain
// x/crypto/ssh client would: the benchmarks' yardstick.
func (c *Client) RunBareSession(cmd string) error {
	s, err := c.ssh.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Run(cmd)
}

// SlowStart delays every session's command by d until the test ends, as a loaded client may.
func SlowStart(tb testing.TB, d time.Duration) {
	old := beforeStart
	beforeStart = func() { time.Sleep(d) }
	tb.Cleanup(func() { beforeStart = old })
}
