package playbooks

import (
	"errors"

	"gopkg.in/yaml.v3"

	"github.com/kupgrade/kupgrade/vault"
)

// unvault returns a vaulted file's plaintext (data itself when it is not vaulted), decrypted with
// the passwords the command line gave.
func unvault(file string, data []byte) ([]byte, error) {
	out, err := vault.Open(data)
	if err != nil {
		return nil, &Error{File: file, Line: 1, Column: 1, Msg: err.Error() + "; " + vault.Fix(err), Err: err}
	}
	return out, nil
}

// unvaultValues turns every `!vault` value under n into its plaintext.
func unvaultValues(file string, n *yaml.Node) error {
	err := vault.DecryptNodes(n)
	var ne *vault.NodeError
	if errors.As(err, &ne) {
		return &Error{File: file, Line: ne.Line, Column: ne.Column, Msg: ne.Err.Error() + "; " + vault.Fix(err), Err: err}
	}
	return err
}
