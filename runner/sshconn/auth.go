package sshconn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// defaultKeys are tried, when present, for hosts without ansible_ssh_private_key_file.
var defaultKeys = []string{"id_ed25519", "id_ecdsa", "id_rsa"}

// keyCache holds what a Dialer learnt about key files, so fifty hosts sharing one encrypted key
// ask for its passphrase once.
type keyCache struct {
	mu      sync.Mutex
	signers map[string]ssh.Signer // parsed (and decrypted) keys by path
}

// keyFiles returns the key files to offer: those of ks that exist (a missing one the inventory
// or its ssh args named is an error; one from ssh_config is skipped, as ssh does), else the
// default ones present.
func keyFiles(ks keySet) ([]string, error) {
	var files []string
	for i, f := range ks.files {
		if _, err := os.Stat(f); err != nil {
			if i < ks.required {
				return nil, fmt.Errorf("read private key %s: %w", f, err)
			}
			continue
		}
		files = append(files, f)
	}
	if len(ks.files) > 0 {
		return files, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, nil
	}
	for _, name := range defaultKeys {
		p := filepath.Join(home, ".ssh", name)
		if _, err := os.Stat(p); err == nil {
			files = append(files, p)
		}
	}
	return files, nil
}

// signer returns the signer of the key at path. An encrypted key whose public half is known
// becomes a lazySigner: the passphrase is asked only when the server accepts that public key.
func (d *Dialer) signer(path string) (ssh.Signer, error) {
	d.keys.mu.Lock()
	s, ok := d.keys.signers[path]
	d.keys.mu.Unlock()
	if ok {
		return s, nil
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read private key %s: %w", path, err)
	}
	s, err = ssh.ParsePrivateKey(pem)
	var missing *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &missing):
		pub := missing.PublicKey
		if pub == nil {
			pub = readPublicKey(path + ".pub")
		}
		l := &lazySigner{d: d, path: path, pem: pem, pub: pub}
		if pub == nil { // nothing to offer without decrypting: decrypt now
			if _, err := l.decrypt(); err != nil {
				return nil, err
			}
		}
		s = l
	case err != nil:
		return nil, fmt.Errorf("parse private key %s: %w", path, err)
	}
	d.keys.mu.Lock()
	defer d.keys.mu.Unlock()
	if d.keys.signers == nil {
		d.keys.signers = map[string]ssh.Signer{}
	}
	d.keys.signers[path] = s
	return s, nil
}

func readPublicKey(path string) ssh.PublicKey {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey(b)
	if err != nil {
		return nil
	}
	return pub
}

// keyError marks a key that could not be used, so the handshake failure is classed Auth.
type keyError struct{ err error }

func (e keyError) Error() string { return e.err.Error() }
func (e keyError) Unwrap() error { return e.err }

// lazySigner decrypts its key on first use; the Dialer's passphrase function is called once.
type lazySigner struct {
	d    *Dialer
	path string
	pem  []byte
	pub  ssh.PublicKey

	once sync.Once
	real ssh.AlgorithmSigner
	err  error
}

func (l *lazySigner) PublicKey() ssh.PublicKey {
	if l.pub == nil {
		return l.real.PublicKey()
	}
	return l.pub
}

func (l *lazySigner) Sign(rand io.Reader, data []byte) (*ssh.Signature, error) {
	s, err := l.decrypt()
	if err != nil {
		return nil, err
	}
	return s.Sign(rand, data)
}

func (l *lazySigner) SignWithAlgorithm(rand io.Reader, data []byte, algorithm string) (*ssh.Signature, error) {
	s, err := l.decrypt()
	if err != nil {
		return nil, err
	}
	return s.SignWithAlgorithm(rand, data, algorithm)
}

func (l *lazySigner) decrypt() (ssh.AlgorithmSigner, error) {
	l.once.Do(func() {
		ask := l.d.Passphrase
		if ask == nil {
			ask = PromptPassphrase
		}
		pass, err := ask(l.path)
		if err != nil {
			l.err = keyError{fmt.Errorf("key %s is encrypted: %w", l.path, err)}
			return
		}
		s, err := ssh.ParsePrivateKeyWithPassphrase(l.pem, pass)
		clear(pass)
		if err != nil {
			l.err = keyError{fmt.Errorf("decrypt private key %s: wrong passphrase or unreadable key", l.path)}
			return
		}
		as, ok := s.(ssh.AlgorithmSigner)
		if !ok {
			l.err = fmt.Errorf("private key %s: unsupported key type %s", l.path, s.PublicKey().Type())
			return
		}
		l.real = as
	})
	return l.real, l.err
}

// authMethods builds the methods for one hop: agent keys first, then key files. The agent
// connection is returned so the caller can close it once the handshake is over.
func (d *Dialer) authMethods(ks keySet) ([]ssh.AuthMethod, io.Closer, error) {
	var closer io.Closer
	var fromAgent []ssh.Signer
	if sock := os.Getenv("SSH_AUTH_SOCK"); d.Agent && sock != "" {
		if conn, err := net.Dial("unix", sock); err == nil {
			closer = conn
			if s, err := agent.NewClient(conn).Signers(); err == nil {
				fromAgent = s
			}
		}
	}
	files, err := keyFiles(ks)
	if err != nil {
		return nil, closer, err
	}
	var fromFiles []ssh.Signer
	for i, f := range files {
		s, err := d.signer(f)
		if err != nil {
			if i < ks.required { // the inventory named this key: its failure is the answer
				return nil, closer, err
			}
			continue // a broken default key must not hide the agent or the next key
		}
		fromFiles = append(fromFiles, s)
	}
	if ks.only {
		fromAgent = slices.DeleteFunc(fromAgent, func(a ssh.Signer) bool { return !amongKeys(a, fromFiles) })
	}
	signers := append(fromAgent, fromFiles...)
	if len(signers) == 0 {
		return nil, closer, errors.New("no keys to offer: set ansible_ssh_private_key_file, add ~/.ssh/id_ed25519, or run ssh-agent")
	}
	return []ssh.AuthMethod{ssh.PublicKeys(signers...)}, closer, nil
}

// amongKeys tells whether s holds the public key of one of keys (IdentitiesOnly lets the agent
// sign only with the keys the files name).
func amongKeys(s ssh.Signer, keys []ssh.Signer) bool {
	pub := s.PublicKey().Marshal()
	for _, k := range keys {
		if bytes.Equal(k.PublicKey().Marshal(), pub) {
			return true
		}
	}
	return false
}
