package sshconn

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"golang.org/x/term"
)

// PassphraseEnv names the environment variable PromptPassphrase reads first.
const PassphraseEnv = "KUPGRADE_SSH_PASSPHRASE"

// promptMu keeps concurrent dials from prompting on the terminal at the same time.
var promptMu sync.Mutex

// PromptPassphrase is the default Dialer.Passphrase: the value of KUPGRADE_SSH_PASSPHRASE, else
// a prompt on /dev/tty when stdin is a terminal, else an error saying how to provide it.
func PromptPassphrase(keyFile string) ([]byte, error) {
	if p, ok := os.LookupEnv(PassphraseEnv); ok {
		return []byte(p), nil
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return nil, fmt.Errorf("no terminal to ask for its passphrase: set %s, or add the key to ssh-agent (ssh-add %s)",
			PassphraseEnv, keyFile)
	}
	promptMu.Lock()
	defer promptMu.Unlock()
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("open terminal: %w (set %s instead)", err, PassphraseEnv)
	}
	defer tty.Close()
	fmt.Fprintf(tty, "Enter passphrase for key %s: ", keyFile)
	pass, err := term.ReadPassword(int(tty.Fd()))
	fmt.Fprintln(tty)
	if err != nil {
		return nil, fmt.Errorf("read passphrase: %w", err)
	}
	if len(pass) == 0 {
		return nil, errors.New("empty passphrase")
	}
	return pass, nil
}
