package mysql

import (
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	driver "github.com/go-sql-driver/mysql"

	"github.com/kupgrade/kupgrade/state"
)

// Timeouts of a connection, unless the DSN sets them (timeout, readTimeout, writeTimeout): a
// server that stops answering fails the statement instead of hanging it forever. Reads get
// more than InnoDB's default 50 s lock wait, so a statement queued behind a row lock ends with
// the server's own, retryable, error 1205 rather than a cut connection.
const (
	dialTimeout  = 10 * time.Second
	readTimeout  = 60 * time.Second
	writeTimeout = 30 * time.Second
)

// config turns the parsed DSN into the driver's Config. Parameters go through the driver's own
// parser (typed options, or session variables such as time_zone); then the timeouts the DSN
// leaves out and the settings the store depends on are set.
func config(d state.DSN, log *slog.Logger) (*driver.Config, error) {
	cfg := driver.NewConfig()
	if len(d.Params) > 0 {
		var q []string
		for _, p := range d.Params {
			q = append(q, p.Key+"="+url.QueryEscape(p.Value))
		}
		var err error
		if cfg, err = driver.ParseDSN("/?" + strings.Join(q, "&")); err != nil {
			return nil, fmt.Errorf("%w: --db %s: %s", state.ErrBadInput, d.Redacted(), scrub(err.Error(), d.Password))
		}
	}
	given := func(key string) bool { return given(d, key) }
	if !given("timeout") {
		cfg.Timeout = dialTimeout
	}
	if !given("readTimeout") {
		cfg.ReadTimeout = readTimeout
	}
	if !given("writeTimeout") {
		cfg.WriteTimeout = writeTimeout
	}
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = d.User, d.Password, d.Net, d.Addr, d.Database
	cfg.Logger = driverLog{log: log, password: d.Password}
	// DATETIME comes back as text and is parsed as UTC by the store, whatever loc says.
	cfg.ParseTime = false
	cfg.Loc = time.UTC
	// RowsAffected must count matched rows, or a compare-and-set that rewrites the same value
	// would look like a lost race.
	cfg.ClientFoundRows = true
	// One round trip per statement instead of prepare, execute, close.
	cfg.InterpolateParams = true
	return cfg, nil
}

// given reports whether the DSN sets the parameter key.
func given(d state.DSN, key string) bool {
	return slices.ContainsFunc(d.Params, func(p state.Param) bool { return p.Key == key })
}

// driverLog sends the driver's diagnostics (a connection dropped, a bad packet), which it would
// otherwise print on stderr by itself, to the store's logger at warn level, password removed.
type driverLog struct {
	log      *slog.Logger
	password string
}

func (l driverLog) Print(v ...any) {
	l.log.Warn("mysql driver: " + scrub(strings.TrimSuffix(fmt.Sprint(v...), "\n"), l.password))
}

// scrub removes password, as given and as it may be %-escaped, from s.
func scrub(s, password string) string {
	if password == "" {
		return s
	}
	for _, p := range []string{password, url.PathEscape(password), url.QueryEscape(password), escapeAll(password)} {
		s = strings.ReplaceAll(s, p, "***")
	}
	return s
}

// escapeAll %-escapes every byte but RFC 3986's unreserved ones (as userinfo is often written).
func escapeAll(s string) string {
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
