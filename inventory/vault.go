package inventory

import (
	"errors"

	"gopkg.in/yaml.v3"

	"github.com/kupgrade/kupgrade/vault"
)

// unvault returns a vaulted file's plaintext (data itself when it is not vaulted), decrypted with
// the passwords the command line gave.
func unvault(path string, data []byte) ([]byte, error) {
	out, err := vault.Open(data)
	if err != nil {
		return nil, &Error{File: path, Line: 1, Column: 1, Msg: err.Error(), Fix: vault.Fix(err), Err: err}
	}
	return out, nil
}

// unvaultValue turns every `!vault` value under n into its plaintext.
func unvaultValue(file string, n *yaml.Node) error {
	err := vault.DecryptNodes(n)
	var ne *vault.NodeError
	if errors.As(err, &ne) {
		return &Error{File: file, Line: ne.Line, Column: ne.Column, Msg: ne.Err.Error(), Fix: vault.Fix(err), Err: err}
	}
	return err
}
