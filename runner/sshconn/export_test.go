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

// SetAgentMode makes Run use mode on the clients dialled until the test ends. Tests that call it
// must not run in parallel.
func SetAgentMode(t testing.TB, mode string) {
	keepAgentStart(t)
	switch mode {
	case "bash agent":
	case "sh agent":
		agentStart = "a=" + shellword.Quote(agentScript) + `; exec sh -c "$a" sh`
	case "session per command":
		agentStart = "echo this shell runs no agent"
	default:
		t.Fatalf("unknown agent mode %q", mode)
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

// GreetBeforeAgent makes the login shell print greeting before it starts the agent, as some
// hosts' shell start-up files do, until the test ends.
func GreetBeforeAgent(t testing.TB, greeting string) {
	keepAgentStart(t)
	agentStart = "printf %s " + shellword.Quote(greeting) + "; " + agentStart
}

// StallBeforeAgent makes the login shell sleep before it starts the agent, and the client wait
// for its banner only for wait, until the test ends.
func StallBeforeAgent(t testing.TB, wait time.Duration) {
	keepAgentStart(t)
	w := bannerWait
	t.Cleanup(func() { bannerWait = w })
	agentStart, bannerWait = "sleep 30; "+agentStart, wait
}

// keepAgentStart puts agentStart back as it is now when the test ends.
func keepAgentStart(t testing.TB) {
	start := agentStart
	t.Cleanup(func() { agentStart = start })
}
