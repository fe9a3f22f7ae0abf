package vault

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// NodeError is a `!vault` value that could not be decrypted, with its position.
type NodeError struct {
	Line, Column int
	Err          error
}

func (e *NodeError) Error() string {
	return fmt.Sprintf("line %d column %d: %v", e.Line, e.Column, e.Err)
}

func (e *NodeError) Unwrap() error { return e.Err }

// DecryptNodes replaces every `!vault` scalar under n with its plaintext as a plain string, using
// the keyring set by Use. The first failure is returned with its position.
func DecryptNodes(n *yaml.Node) error { return decryptNodes(n, 0) }

func decryptNodes(n *yaml.Node, depth int) error {
	if n == nil || depth > 1000 {
		return nil
	}
	if n.Tag == "!vault" {
		return decryptNode(n)
	}
	for _, c := range n.Content {
		if err := decryptNodes(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func decryptNode(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &NodeError{n.Line, n.Column, fmt.Errorf("a !vault value must be the text ansible-vault encrypt_string printed")}
	}
	out, err := Current().Decrypt([]byte(n.Value))
	if err != nil {
		return &NodeError{n.Line, n.Column, fmt.Errorf("decrypt !vault value: %w", err)}
	}
	n.Tag, n.Value, n.Style = "!!str", string(out), 0
	return nil
}
