package main

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/term"

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

// promptVault asks on the controlling terminal, never echoing.
func promptVault(prompt string) ([]byte, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("open terminal: %w (use --vault-password-file instead)", err)
	}
	defer tty.Close()
	fmt.Fprint(tty, prompt)
	pass, err := term.ReadPassword(int(tty.Fd()))
	fmt.Fprintln(tty)
	if err != nil {
		return nil, fmt.Errorf("read vault password: %w", err)
	}
	if len(pass) == 0 {
		return nil, errors.New("empty vault password")
	}
	return pass, nil
}
