package state

import (
	"fmt"
	"net/url"
	"strings"
)

// dsnErr is a malformed DSN: ErrBadInput with the 1-based column of the problem. The message
// is kept as a format and its arguments so that ParseDSN can hide, before anyone sees it, an
// argument that may be a piece of the password.
type dsnErr struct {
	col    int
	format string
	args   []any
}

func dsnError(col int, format string, args ...any) error {
	return &dsnErr{col: col, format: format, args: args}
}

func (e *dsnErr) Error() string {
	return fmt.Sprintf("%v: --db: column %d: %s", ErrBadInput, e.col, fmt.Sprintf(e.format, e.args...))
}

func (e *dsnErr) Unwrap() error { return ErrBadInput }

// hidden stands in the message for a quoted piece of the DSN that may hold the password.
type hidden struct{}

func (hidden) Format(f fmt.State, _ rune) { f.Write([]byte("(not shown: it may hold the password)")) }

// hide replaces each string argument that may be a piece of s's password. An argument may be
// shown only if it is found, as typed or unescaped, wholly before or wholly after the span
// where a password can be (see secretSpan): wherever the parser went wrong, what it quotes
// then is text that was never secret.
func (e *dsnErr) hide(s string) {
	start, end := secretSpan(s)
	if start < 0 {
		return
	}
	before, after := s[:start], s[end:]
	visible := []string{before, after}
	if u, err := url.PathUnescape(after); err == nil {
		visible = append(visible, u)
	}
	if u, err := url.QueryUnescape(after); err == nil {
		visible = append(visible, u)
	}
	for i, a := range e.args {
		v, ok := a.(string)
		if !ok || v == "" {
			continue
		}
		shown := false
		for _, t := range visible {
			shown = shown || strings.Contains(t, v)
		}
		if !shown {
			e.args[i] = hidden{}
		}
	}
}

// secretSpan is where a password can be in s, as byte offsets [start, end): after the first ':'
// of the user info and before the last '@'. Whatever the shape, a password the user meant lies
// inside it. start is -1 when s has no such span (no password).
func secretSpan(s string) (start, end int) {
	from := 0
	if scheme, ok := urlScheme(s); ok {
		from = len(scheme) + len("://")
	}
	colon := strings.IndexByte(s[from:], ':')
	at := strings.LastIndexByte(s, '@')
	if colon < 0 || from+colon >= at {
		return -1, -1
	}
	return from + colon + 1, at
}

// urlScheme returns the scheme of s when s starts with SCHEME:// (letters, digits, '+', '-',
// '.'; a letter first), as in RFC 3986. "user:pa://ss@..." has none.
func urlScheme(s string) (string, bool) {
	scheme, _, ok := strings.Cut(s, "://")
	if !ok || scheme == "" || !isLetter(scheme[0]) {
		return "", false
	}
	for i := range len(scheme) {
		c := scheme[i]
		if !isLetter(c) && (c < '0' || c > '9') && c != '+' && c != '-' && c != '.' {
			return "", false
		}
	}
	return scheme, true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// DSNSecrets returns the text of the raw DSN s where a password can be, as typed (see
// secretSpan), without parsing s: nil when s has no password. cmd removes it, and the parsed
// DSN's Password, from everything it prints, as a last guard behind the errors that never
// quote a password in the first place; it also covers a DSN that does not parse, or one that
// kong quotes from the command line.
func DSNSecrets(s string) []string {
	if start, end := secretSpan(s); start >= 0 && end > start {
		return []string{s[start:end]}
	}
	return nil
}

// Redacted prints the DSN for logs and errors: the password, and any parameter value holding
// it, is replaced by "***". A MySQL DSN comes out as a mysql:// URL, or in go-sql-driver's form
// for a socket (no URL spelling); both parse back.
func (d DSN) Redacted() string {
	if d.Driver == "sqlite" {
		return "sqlite:" + d.Path
	}
	unix := d.Net == "unix"
	// ':' and '@' are escaped too: the user ends at the first ':', the user info at the last '@'.
	esc := func(s string) string { return strings.NewReplacer(":", "%3A", "@", "%40").Replace(url.PathEscape(s)) }
	if unix {
		esc = func(s string) string { return s }
	}
	var b strings.Builder
	if !unix {
		b.WriteString("mysql://")
	}
	if d.User != "" {
		b.WriteString(esc(d.User))
		if d.Password != "" {
			b.WriteString(":***")
		}
		b.WriteString("@")
	}
	if unix {
		b.WriteString("unix(" + d.Addr + ")")
	} else {
		b.WriteString(d.Addr)
	}
	b.WriteString("/" + esc(d.Database))
	for i, p := range d.Params {
		sep := "&"
		if i == 0 {
			sep = "?"
		}
		v := url.QueryEscape(p.Value)
		if d.Password != "" && strings.Contains(p.Value, d.Password) {
			v = "***" // a password pasted into a parameter by mistake
		}
		b.WriteString(sep + p.Key + "=" + v)
	}
	return b.String()
}

// String is Redacted, so that a DSN printed by mistake (%v) does not leak its password.
func (d DSN) String() string { return d.Redacted() }
