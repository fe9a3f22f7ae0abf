package vault

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Prompter asks for a password on the terminal; the CLI supplies it.
type Prompter func(prompt string) ([]byte, error)

// ParseID reads a --vault-id value, "[label@]source", into its label and source.
func ParseID(v string) (id, source string) {
	if label, src, ok := strings.Cut(v, "@"); ok {
		return label, src
	}
	return "default", v
}

// Load reads the password a source names: "prompt" asks with ask; an executable file is run and
// its standard output is the password; any other file holds it (trailing newlines removed).
func Load(id, source string, ask Prompter) (Secret, error) {
	s := Secret{ID: id, Source: source}
	if source == "prompt" {
		if ask == nil {
			return s, fmt.Errorf("read vault password %q: no terminal to prompt on", id)
		}
		pw, err := ask(fmt.Sprintf("Vault password (%s): ", id))
		s.Password = pw
		return s, err
	}
	info, err := os.Stat(source)
	if err != nil {
		return s, fmt.Errorf("read vault password file: %w", err)
	}
	var pw []byte
	if info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
		pw, err = runScript(source, id)
	} else {
		pw, err = os.ReadFile(source)
	}
	if err != nil {
		return s, err
	}
	s.Password = bytes.TrimRight(pw, "\r\n")
	if len(bytes.TrimSpace(s.Password)) == 0 {
		return s, fmt.Errorf("read vault password file %s: it is empty", source)
	}
	return s, nil
}

// runScript runs an executable password file as Ansible does: a script named *-client is
// given --vault-id LABEL, others no arguments.
func runScript(path, id string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var args []string
	if base := filepath.Base(path); strings.HasSuffix(strings.TrimSuffix(base, filepath.Ext(base)), "-client") {
		args = []string{"--vault-id", id}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("run vault password script %s: %w: %s", path, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
