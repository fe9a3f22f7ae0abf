package mysql

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// recorder is a slog.Handler that keeps every message, unescaped.
type recorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Message)
	return nil
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...)
}

// hangUp listens on loopback and closes every connection at once: the driver fails its
// handshake (and logs it) without any server.
func hangUp(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}

var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// quotedLeak reports whether a quoted value of msg (every piece of the DSN that ParseDSN's
// errors quote is quoted), read unquoted, shows password.
func quotedLeak(msg, password string) bool {
	for _, q := range quoted.FindAllString(msg, -1) {
		if u, err := strconv.Unquote(q); err == nil {
			q = u
		}
		if strings.Contains(q, password) {
			return true
		}
	}
	return false
}

// openMessages opens d and returns what the caller and the log are told.
func openMessages(t *testing.T, d state.DSN) []string {
	rec := &recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := Open(ctx, d, state.WithLog(slog.New(rec)))
	if err == nil {
		st.Close()
		t.Fatalf("Open(%s) succeeded against a listener that hangs up", d)
	}
	return append(rec.all(), err.Error())
}

// dsnShape builds a DSN around password: both forms, typed or %-escaped, with extra text where
// a user mistypes (port, parameters, database, address), and a list of servers.
func dsnShape(shape uint8, addr, password, extra string) string {
	switch shape % 9 {
	case 0:
		return "mysql://kup:" + password + "@" + addr + "/kupgrade"
	case 1:
		return "mysql://kup:" + url.PathEscape(password) + "@" + addr + "/kupgrade"
	case 2:
		return "kup:" + password + "@tcp(" + addr + ")/kupgrade"
	case 3:
		return "mysql://kup:" + password + "@" + addr + "/kupgrade?" + extra
	case 4:
		return "kup:" + password + "@tcp(" + addr + ")/" + extra
	case 5:
		return "mysql://kup:" + password + "@" + extra
	case 6:
		return "kup:" + password + "@" + extra
	case 7:
		return "mysql://kup:" + password + "@" + addr + "/kupgrade?timeout=" + extra
	default: // the servers of a Galera cluster: the failover tries each
		return "mysql://kup:" + password + "@" + addr + "," + addr + "/kupgrade?" + extra
	}
}

// FuzzDSNNeverLeaksPassword: whatever the password and the DSN around it, neither ParseDSN's
// error nor Open's (the handshake fails against a loopback listener that hangs up) nor the
// driver's log shows it. A password shorter than 4 bytes, or one that is also written
// elsewhere in the DSN, is not checked: showing that text reveals nothing.
func FuzzDSNNeverLeaksPassword(f *testing.F) {
	for _, seed := range []struct {
		shape           uint8
		password, extra string
	}{
		{0, "hunter2/x", ""}, {0, "hunter2", ""}, {1, "p@ss/w:rd%(x)?", ""}, {2, "p@ss/w:rd)(", ""},
		{3, "hunter2", "tls=bogus"}, {3, "s3cret?", "hunter=2"}, {4, "hunter2", "k.x"}, {5, "hunter2", "db:99999/k"},
		{5, "u:hunter2/x", "db:3306"}, {6, "pa://ss", "udp(db)/k"}, {7, "hunter2", "soon"}, {0, "%zz%", ""},
		{8, "hunter2", "timeout=1s"}, {8, "p@ss,w:rd", "tls=hunter2"},
	} {
		f.Add(seed.shape, seed.password, seed.extra)
	}
	addr := hangUp(f)
	f.Fuzz(func(t *testing.T, shape uint8, password, extra string) {
		s := dsnShape(shape, addr, password, extra)
		typed := password
		if shape%9 == 1 {
			typed = url.PathEscape(password)
		}
		i := strings.Index(s, typed)
		rest := s[:i] + "\x00" + s[i+len(typed):]
		if len(password) < 4 || strings.Contains(rest, password) {
			return
		}
		d, err := state.ParseDSN(s)
		if err != nil {
			if quotedLeak(err.Error(), password) {
				t.Fatalf("ParseDSN(%q) = %v: shows the password %q", s, err, password)
			}
			return
		}
		if strings.Contains(d.Redacted(), password) || d.Addrs()[0] != addr {
			return // the password is also the user, database or a parameter; or no loopback to dial
		}
		// What Open says with another password is the same text but for a leak: the words the
		// messages are made of may spell a short password by chance.
		other := d
		other.Password = "\x01"
		words := strings.Join(openMessages(t, other), "\n")
		for _, msg := range openMessages(t, d) {
			if strings.Contains(msg, password) && !strings.Contains(words, password) {
				t.Fatalf("Open(%q): %q shows the password %q", s, msg, password)
			}
		}
	})
}

// The reported case, end to end: it parses, and what Open says about a failed handshake
// names the address, not the password.
func TestReportedDSNOpens(t *testing.T) {
	addr := hangUp(t)
	d, err := state.ParseDSN("mysql://u:hunter2/x@" + addr + "/k")
	if err != nil {
		t.Fatalf("ParseDSN: %v", err)
	}
	rec := &recorder{}
	_, err = Open(t.Context(), d, state.WithLog(slog.New(rec)))
	if err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("Open = %v, want an error naming %s", err, addr)
	}
	for _, msg := range append(rec.all(), err.Error()) {
		if strings.Contains(msg, "hunter2") {
			t.Errorf("%q shows the password", msg)
		}
	}
	if len(rec.all()) == 0 {
		t.Errorf("the driver's diagnostics did not reach Options.Log")
	}
	if errors.Is(err, state.ErrBadInput) {
		t.Errorf("a failed handshake is not bad input: %v", err)
	}
}
