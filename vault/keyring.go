package vault

import (
	"errors"
	"fmt"
	"sync"
)

// ErrNoPassword means vaulted data was met while no vault password was given.
var ErrNoPassword = errors.New("no vault password was given")

// ErrWrongPassword means none of the given passwords decrypts the data.
var ErrWrongPassword = errors.New("no vault password given decrypts it")

// Secret is one vault password with its label ("default" when none was given).
type Secret struct {
	ID       string
	Password []byte
	Source   string // where the password came from, for messages
}

// Keyring holds the passwords a run may decrypt with, tried in the order given.
type Keyring struct{ secrets []Secret }

// NewKeyring gathers secrets into a keyring.
func NewKeyring(secrets ...Secret) *Keyring { return &Keyring{secrets: secrets} }

// Len is how many passwords the keyring holds.
func (k *Keyring) Len() int {
	if k == nil {
		return 0
	}
	return len(k.secrets)
}

// Decrypt returns the plaintext of vault text. A 1.2 text's label picks the passwords with the
// same label first; the others are tried after them, as ansible-vault does.
func (k *Keyring) Decrypt(data []byte) ([]byte, error) {
	env, err := parse(data)
	if err != nil {
		return nil, err
	}
	if k.Len() == 0 {
		return nil, ErrNoPassword
	}
	for _, s := range k.ordered(env.id) {
		out, err := env.open(s.Password)
		if err == nil {
			return out, nil
		}
		if !errors.Is(err, errMismatch) {
			return nil, err
		}
	}
	if env.id != "" {
		return nil, fmt.Errorf("%w (it is labelled %q)", ErrWrongPassword, env.id)
	}
	return nil, ErrWrongPassword
}

func (k *Keyring) ordered(id string) []Secret {
	out := make([]Secret, 0, len(k.secrets))
	for _, s := range k.secrets {
		if id != "" && s.ID == id {
			out = append(out, s)
		}
	}
	for _, s := range k.secrets {
		if id == "" || s.ID != id {
			out = append(out, s)
		}
	}
	return out
}

var (
	mu      sync.RWMutex
	current *Keyring
)

// Use makes k the keyring that Open and the loaders decrypt with (nil: none).
func Use(k *Keyring) {
	mu.Lock()
	defer mu.Unlock()
	current = k
}

// Current is the keyring set by Use.
func Current() *Keyring {
	mu.RLock()
	defer mu.RUnlock()
	return current
}

// Open returns data unchanged when it is not vault text, and its plaintext (decrypted with the
// keyring set by Use) when it is. Errors say what to do but never hold the plaintext.
func Open(data []byte) ([]byte, error) {
	if !IsVaulted(data) {
		return data, nil
	}
	out, err := Current().Decrypt(data)
	if err != nil {
		return nil, fmt.Errorf("decrypt vaulted data: %w", err)
	}
	return out, nil
}

// Fix is the advice for a decryption error, for the loaders' messages.
func Fix(err error) string {
	switch {
	case errors.Is(err, ErrNoPassword):
		return "give the password with --vault-password-file FILE, --vault-id [label@]FILE, --ask-vault-pass or ANSIBLE_VAULT_PASSWORD_FILE"
	case errors.Is(err, ErrWrongPassword):
		return "give the password it was encrypted with (check with ansible-vault view)"
	}
	return "re-encrypt it with ansible-vault"
}
