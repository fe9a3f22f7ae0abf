package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/vault"
)

// Vault holds the flags that give vault passwords, as ansible-playbook's.
type Vault struct {
	VaultPasswordFile []string `name:"vault-password-file" env:"ANSIBLE_VAULT_PASSWORD_FILE" type:"path" sep:"none" help:"Vault password file (an executable is run and its output used); repeatable."`
	VaultID           []string `name:"vault-id" sep:"none" help:"[LABEL@]SOURCE: a vault password from a file, an executable or 'prompt'; repeatable."`
	AskVaultPass      bool     `name:"ask-vault-pass" aliases:"ask-vault-password" help:"Ask for the vault password on the terminal."`
}

// useVault reads every password the flags give and makes them the keyring loaders decrypt with.
func (a *app) useVault() error {
	v := a.g.Vault
	var secrets []vault.Secret
	add := func(id, source string) error {
		s, err := vault.Load(id, source, promptVault)
		if err != nil {
			return fmt.Errorf("vault password %s: %w: %w", source, err, state.ErrBadInput)
		}
		secrets = append(secrets, s)
		return nil
	}
	if v.AskVaultPass {
		if err := add("default", "prompt"); err != nil {
			return err
		}
	}
	for _, f := range v.VaultPasswordFile {
		if err := add("default", f); err != nil {
			return err
		}
	}
	for _, idv := range v.VaultID {
		if err := add(vault.ParseID(idv)); err != nil {
			return err
		}
	}
	vault.Use(vault.NewKeyring(secrets...))
	return nil
}

// vaultTTY is the terminal --ask-vault-pass and --vault-id LABEL@prompt ask on (tests use a
// pseudo-terminal's).
var vaultTTY = "/dev/tty"

// promptVault asks on the terminal. Echo is off before the prompt shows, so that nothing typed
// after it (or ahead of it) is echoed.
func promptVault(prompt string) ([]byte, error) {
	tty, err := os.OpenFile(vaultTTY, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("open terminal: %w (use --vault-password-file instead)", err)
	}
	defer tty.Close()
	restore, err := echoOff(int(tty.Fd()))
	if err != nil {
		return nil, fmt.Errorf("turn terminal echo off: %w", err)
	}
	fmt.Fprint(tty, prompt)
	line, err := bufio.NewReader(tty).ReadString('\n')
	restore()
	fmt.Fprintln(tty)
	pass := []byte(strings.TrimRight(line, "\r\n"))
	if err != nil && len(pass) == 0 {
		return nil, fmt.Errorf("read vault password: %w", err)
	}
	if len(pass) == 0 {
		return nil, errors.New("empty vault password")
	}
	return pass, nil
}

// echoOff turns the terminal's echo off (lines still end at Enter, Ctrl-C still interrupts) and
// returns what restores it.
func echoOff(fd int) (func(), error) {
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, err
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	quiet.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return nil, err
	}
	return func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, old) }, nil
}
