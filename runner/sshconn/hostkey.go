package sshconn

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// appendMu serialises appends within this process; flock covers other processes.
var appendMu sync.Mutex

// Host key checking modes, as ssh's StrictHostKeyChecking.
const (
	strictYes       = "yes"        // an unknown key is refused
	strictAcceptNew = "accept-new" // an unknown key is recorded and trusted
	strictNo        = "no"         // also a changed key is let through (not recorded)
)

// hostKeys checks one hop's host key against its known_hosts files.
type hostKeys struct {
	paths []string         // the files checked; an unknown key is recorded in the first
	mode  string           // strictYes, strictAcceptNew or strictNo
	cache *knownHostsCache // the Dialer's; nil parses every time
	log   *slog.Logger     // the Dialer's Log, for a changed key let through
}

// path is the file new keys go to, named in messages.
func (k hostKeys) path() string { return k.paths[0] }

// parse reads the known_hosts files that exist; (nil, nil) when none does.
func (k hostKeys) parse() (ssh.HostKeyCallback, error) {
	var files []string
	var stamp []string // size and modification time of each file: the cache entry's validity
	for _, p := range k.paths {
		if fi, err := os.Stat(p); err == nil {
			files = append(files, p)
			stamp = append(stamp, fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano()))
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	key, at := strings.Join(files, "\x00"), strings.Join(stamp, " ")
	if cb := k.cache.get(key, at); cb != nil {
		return cb, nil
	}
	cb, err := knownhosts.New(files...)
	if err != nil {
		return nil, fmt.Errorf("read known_hosts %s: %w", strings.Join(files, " "), err)
	}
	k.cache.put(key, at, cb)
	return cb, nil
}

// knownHostsCache keeps the parsed known_hosts files of a Dialer. Every dial checks a key
// against them, twice; parsing a file of N lines for each of N hosts grew as N² (at N = 200 it
// was most of the CPU kupgrade spent connecting). An entry serves while its files keep their
// size and modification time, so a key recorded meanwhile is seen.
type knownHostsCache struct {
	mu      sync.Mutex
	entries map[string]knownHostsEntry
}

type knownHostsEntry struct {
	stamp string
	cb    ssh.HostKeyCallback // knownhosts' callback only reads its database: safe to share
}

func (c *knownHostsCache) get(key, stamp string) ssh.HostKeyCallback {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok && e.stamp == stamp {
		return e.cb
	}
	return nil
}

func (c *knownHostsCache) put(key, stamp string, cb ssh.HostKeyCallback) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]knownHostsEntry{}
	}
	c.entries[key] = knownHostsEntry{stamp: stamp, cb: cb}
}

// known returns the keys recorded for addr ("host:port"); a missing file knows nothing.
func (k hostKeys) known(addr string) ([]knownhosts.KnownKey, error) {
	cb, err := k.parse()
	if cb == nil {
		return nil, err
	}
	// Asking about a key nobody has makes knownhosts list every key it holds for addr.
	probe, _ := ssh.NewPublicKey(ed25519.PublicKey(make([]byte, ed25519.PublicKeySize)))
	var ke *knownhosts.KeyError
	if err := cb(addr, probeAddr(addr), probe); errors.As(err, &ke) {
		return ke.Want, nil
	} else if err != nil {
		return nil, fmt.Errorf("read known_hosts %s: %w", k.path(), err)
	}
	return nil, nil
}

// probeAddr gives knownhosts a remote address; a hostname maps to an unused one so that only
// the name's entries are looked up.
func probeAddr(addr string) net.Addr {
	host, _, _ := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	if ip == nil {
		ip = net.IPv4zero
	}
	return &net.TCPAddr{IP: ip}
}

// algorithms lists host key algorithms with the types known_hosts has for addr first, so the
// server presents a key we can verify instead of one that would look "changed".
func algorithms(known []knownhosts.KnownKey) []string {
	var first []string
	for _, k := range known {
		for _, a := range algorithmsFor(k.Key.Type()) {
			if !slices.Contains(first, a) {
				first = append(first, a)
			}
		}
	}
	if len(first) == 0 {
		return nil // library default
	}
	for _, a := range ssh.SupportedAlgorithms().HostKeys {
		if !slices.Contains(first, a) {
			first = append(first, a)
		}
	}
	return first
}

func algorithmsFor(keyType string) []string {
	switch keyType {
	case ssh.KeyAlgoRSA:
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	case ssh.CertAlgoRSAv01:
		return []string{ssh.CertAlgoRSASHA512v01, ssh.CertAlgoRSASHA256v01, ssh.CertAlgoRSAv01}
	}
	return []string{keyType}
}

// callback verifies the key of the hop at addr; host names the inventory host for messages.
func (k hostKeys) callback(host string) ssh.HostKeyCallback {
	return func(addr string, remote net.Addr, key ssh.PublicKey) error {
		err := k.check(addr, remote, key)
		if err == nil {
			return nil
		}
		var ke *knownhosts.KeyError
		switch {
		case errors.As(err, &ke) && len(ke.Want) > 0 && k.mode == strictNo:
			k.warnChanged(host, addr, key, ke)
			return nil // StrictHostKeyChecking=no: ssh connects too, with a warning (and records nothing)
		case errors.As(err, &ke) && len(ke.Want) > 0:
			return &Error{Host: host, Addr: addr, Class: HostKey, Err: changedKey(addr, key, ke)}
		case errors.As(err, &ke) && k.mode == strictYes:
			return &Error{Host: host, Addr: addr, Class: HostKey, Err: fmt.Errorf(
				"unknown host key %s %s (not in %s): check it, then add it with `ssh-keyscan -p PORT HOST >> %s` "+
					"or run again with --accept-new-host-keys", key.Type(), ssh.FingerprintSHA256(key),
				strings.Join(k.paths, " "), k.path())}
		case errors.As(err, &ke):
			if err := k.record(addr, remote, key); err != nil {
				return &Error{Host: host, Addr: addr, Class: HostKey, Err: err}
			}
			return nil
		}
		return &Error{Host: host, Addr: addr, Class: HostKey, Err: err}
	}
}

func (k hostKeys) check(addr string, remote net.Addr, key ssh.PublicKey) error {
	cb, err := k.parse()
	if cb == nil && err == nil {
		return &knownhosts.KeyError{}
	}
	if err != nil {
		return err
	}
	return cb(addr, remote, key)
}

func changedKey(addr string, key ssh.PublicKey, ke *knownhosts.KeyError) error {
	w := ke.Want[0]
	return fmt.Errorf("@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED @@@ %s presented %s %s but %s:%d "+
		"records %s %s; someone may be intercepting the connection (or the host was reinstalled): "+
		"refusing to connect; if the change is expected, remove the old line and verify the new key",
		addr, key.Type(), ssh.FingerprintSHA256(key), w.Filename, w.Line, w.Key.Type(), ssh.FingerprintSHA256(w.Key))
}

// record appends addr's key to known_hosts, creating the file (0600) and its folder (0700).
// It re-reads the file under the lock: a concurrent dial may have recorded the host meanwhile.
func (k hostKeys) record(addr string, remote net.Addr, key ssh.PublicKey) error {
	appendMu.Lock()
	defer appendMu.Unlock()
	if k.path() == os.DevNull {
		return nil // UserKnownHostsFile=/dev/null: trusted for this connection, recorded nowhere
	}
	if err := os.MkdirAll(filepath.Dir(k.path()), 0o700); err != nil {
		return fmt.Errorf("create known_hosts folder: %w", err)
	}
	f, err := os.OpenFile(k.path(), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open known_hosts: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock known_hosts %s: %w", k.path(), err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN) //nolint:errcheck // released by Close anyway
	var ke *knownhosts.KeyError
	switch err := k.check(addr, remote, key); {
	case err == nil:
		return nil
	case errors.As(err, &ke) && len(ke.Want) > 0:
		return changedKey(addr, key, ke)
	case !errors.As(err, &ke):
		return err
	}
	content, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("read known_hosts: %w", err)
	}
	line := knownhosts.Line([]string{knownhosts.Normalize(addr)}, key) + "\n"
	if len(content) > 0 && !bytes.HasSuffix(content, []byte("\n")) {
		line = "\n" + line
	}
	if _, err := f.WriteString(line); err != nil {
		return fmt.Errorf("append to known_hosts %s: %w", k.path(), err)
	}
	return nil
}
