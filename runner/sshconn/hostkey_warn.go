package sshconn

import (
	"fmt"
	"log/slog"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// warnChanged says, as ssh does, that host's key changed and is let through all the same
// (StrictHostKeyChecking=no): the host, the key it presented and the keys known_hosts records
// for it, with where, and how to record the new one once it is checked.
func (k hostKeys) warnChanged(host, addr string, key ssh.PublicKey, ke *knownhosts.KeyError) {
	log := k.log
	if log == nil {
		log = slog.Default()
	}
	known := make([]string, len(ke.Want))
	for i, w := range ke.Want {
		known[i] = fmt.Sprintf("%s %s (%s:%d)", w.Key.Type(), ssh.FingerprintSHA256(w.Key), w.Filename, w.Line)
	}
	log.Warn("WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! Someone may be intercepting the connection "+
		"(or the host was reinstalled); connecting anyway because StrictHostKeyChecking=no",
		"host", host, "addr", addr, "presented", key.Type()+" "+ssh.FingerprintSHA256(key),
		"known", strings.Join(known, ", "),
		"fix", fmt.Sprintf("if the change is expected, verify the new key, then `ssh-keygen -f %s -R %s`",
			ke.Want[0].Filename, knownhosts.Normalize(addr)))
}
