package modules

import (
	"fmt"
	"os"

	"github.com/kupgrade/kupgrade/vault"
)

// readDecrypted reads a file on this machine for copy's and template's src; a vaulted file is
// decrypted, as Ansible does, with the passwords the command line gave.
func readDecrypted(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out, err := vault.Open(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; %s", path, err, vault.Fix(err))
	}
	return out, nil
}
