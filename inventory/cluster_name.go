package inventory

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// maxClusterName is the longest cluster name, in characters: the databases' cluster columns
// hold 255.
const maxClusterName = 255

// CheckClusterName says why name cannot name a cluster, nil when it can. Refused: the empty
// name, "." and ".." (folder names: a cluster's files would land in the folder above its own),
// control characters (newlines, escapes: they would forge lines of output), text that is not
// UTF-8, and a name longer than maxClusterName characters. Anything else, '/' and spaces
// included, is a cluster's name: its snapshot folder is made safe where it is made.
func CheckClusterName(name string) error {
	switch {
	case name == "":
		return errors.New("the cluster name is empty")
	case name == "." || name == "..":
		return fmt.Errorf("the cluster name %q is a folder's name (. and ..), not a cluster's", name)
	case !utf8.ValidString(name):
		return fmt.Errorf("the cluster name %q is not UTF-8 text", name)
	case utf8.RuneCountInString(name) > maxClusterName:
		return fmt.Errorf("the cluster name is %d characters long, more than %d", utf8.RuneCountInString(name), maxClusterName)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("the cluster name %q holds the control character %U", name, r)
		}
	}
	return nil
}

// ClusterNameFix is how to mend a name CheckClusterName refused.
const ClusterNameFix = "give the cluster a name of printable characters, not . or .. (letters, digits, '-', '_' and '.' are safe everywhere)"
