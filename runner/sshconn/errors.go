package sshconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/kupgrade/kupgrade/internal/fault"
)

// Class says why a host could not be reached or talked to.
type Class int

const (
	// Unreachable: the TCP connection or the SSH handshake failed (refused, no route, reset).
	Unreachable Class = iota + 1
	// Auth: the server refused every key offered, or a key could not be loaded.
	Auth
	// HostKey: the host's key is unknown (and AcceptNew is off) or has changed.
	HostKey
	// Timeout: connecting (TCP plus handshake, per hop) took longer than ConnectTimeout.
	Timeout
	// Closed: an established connection was lost (keepalives unanswered, reset, closed).
	Closed
)

func (c Class) String() string {
	switch c {
	case Unreachable:
		return "unreachable"
	case Auth:
		return "authentication failed"
	case HostKey:
		return "host key refused"
	case Timeout:
		return "connect timeout"
	case Closed:
		return "connection lost"
	}
	return fmt.Sprintf("class %d", int(c))
}

// Error is a classed transport failure. Host is the inventory name, Addr the host:port dialled
// (a jump host's address when that hop failed).
type Error struct {
	Host  string
	Addr  string
	Class Class
	Err   error
}

func (e *Error) Error() string {
	where := e.Host
	if e.Addr != "" && e.Addr != e.Host {
		where = fmt.Sprintf("%s (%s)", e.Host, e.Addr)
	}
	return fmt.Sprintf("ssh %s: %s: %v", where, e.Class, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes an error whose host could not be used at all of class fault.ErrUnreachable, which
// cmd maps to exit 5. A connect timeout is one too, counted as Unreachable in its meaning
// (docs/cli.md exit 5); a connection lost after it was made (Closed) is not.
func (e *Error) Is(target error) bool {
	if target != fault.ErrUnreachable {
		return false
	}
	switch e.Class {
	case Unreachable, Auth, HostKey, Timeout:
		return true
	}
	return false
}

// IsClass reports whether err is an *Error of class c.
func IsClass(err error, c Class) bool {
	var e *Error
	return errors.As(err, &e) && e.Class == c
}

// classify turns a dial or handshake failure into an *Error. timedOut says the hop's connect
// timer fired (it closes the connection, so the error itself may only say "EOF").
func classify(host, addr string, err error, timedOut bool) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	class := Unreachable
	var ne net.Error
	var ke keyError
	switch {
	case errors.As(err, &ke):
		class = Auth
	case timedOut, errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		class = Timeout
	case strings.Contains(err.Error(), "unable to authenticate"),
		strings.Contains(err.Error(), "no supported methods remain"):
		class = Auth
	}
	return &Error{Host: host, Addr: addr, Class: class, Err: err}
}
