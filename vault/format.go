package vault

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Header is how every vaulted text begins.
const Header = "$ANSIBLE_VAULT"

// envelope is a parsed vault text: its version, label (1.2 only) and the three payload parts.
type envelope struct {
	version string
	id      string
	salt    []byte
	mac     []byte
	cipher  []byte
}

// IsVaulted reports whether data (after leading blanks) is vault text.
func IsVaulted(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte(Header+";"))
}

// parse splits vault text into its header fields and the decoded payload.
func parse(data []byte) (*envelope, error) {
	text := strings.TrimSpace(string(data))
	head, body, _ := strings.Cut(text, "\n")
	fields := strings.Split(strings.TrimSpace(head), ";")
	if len(fields) < 3 || fields[0] != Header {
		return nil, errors.New("not ansible-vault data: the first line must be $ANSIBLE_VAULT;1.1;AES256")
	}
	env := &envelope{version: fields[1]}
	switch {
	case fields[1] == "1.1" && len(fields) == 3:
	case fields[1] == "1.2" && len(fields) == 4:
		env.id = fields[3]
	default:
		return nil, fmt.Errorf("unsupported vault format %s (kupgrade reads 1.1 and 1.2)", strings.Join(fields[1:], ";"))
	}
	if fields[2] != "AES256" {
		return nil, fmt.Errorf("unsupported vault cipher %q (ansible-vault writes AES256)", fields[2])
	}
	return env, env.payload(body)
}

func (env *envelope) payload(body string) error {
	raw, err := hex.DecodeString(strings.Join(strings.Fields(body), ""))
	if err != nil {
		return fmt.Errorf("decode vault payload: %w", err)
	}
	parts := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(parts) != 3 {
		return fmt.Errorf("decode vault payload: want salt, hmac and ciphertext, found %d parts", len(parts))
	}
	dst := []*[]byte{&env.salt, &env.mac, &env.cipher}
	for i, p := range parts {
		if *dst[i], err = hex.DecodeString(p); err != nil {
			return fmt.Errorf("decode vault payload part %d: %w", i+1, err)
		}
	}
	return nil
}
