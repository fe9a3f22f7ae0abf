package state

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// DSN is a parsed --db value: sqlite:PATH, mysql://user:pass@host:port/db?params, or the
// go-sql-driver form user:pass@tcp(host:port)/db?params. Either MySQL form may name several
// servers of one replicated cluster (Galera), separated by ',': mysql://u:p@db1,db2:3307/db or
// u:p@tcp(db1:3306,db2:3306)/db; the store connects to the first that answers.
//
// In both MySQL forms the user name ends at the first ':' and the password runs to the last
// '@' before the address, so a password may hold '/', '@', ':', '?', '(' or ')' as typed; in the
// URL form a '%' starts an escape (%25 is a literal '%'), and an '@' in a parameter value must
// be written %40. A DSN is parsed once and the value passed around: its password never appears
// in an error, and String prints it as "***".
//
// Parameters are go-sql-driver's (tls, time_zone, ...). Unless the DSN sets them, state/mysql
// adds timeout=10s (dial), readTimeout=60s and writeTimeout=30s, so that a server that stops
// answering fails a statement instead of hanging it; readTimeout stays above InnoDB's default
// 50 s lock wait, so a statement waiting on a row lock ends with the server's own error.
type DSN struct {
	Driver   string // "sqlite" or "mysql"
	Path     string // sqlite: the database file
	User     string // mysql
	Password string // mysql; never printed (see Redacted)
	Net      string // mysql: "tcp" or "unix"
	Addr     string // mysql: host:port, several joined by ',' (see Addrs), or the socket path
	Database string // mysql
	Params   []Param
}

// Addrs are the servers the DSN names, in the order given: one, or several for a replicated
// cluster (mysql://u:p@db1:3306,db2:3306,db3:3306/kupgrade), which state/mysql tries in turn.
func (d DSN) Addrs() []string {
	if d.Net != "tcp" {
		return []string{d.Addr}
	}
	return strings.Split(d.Addr, ",")
}

// Param is one ?key=value of a MySQL DSN, in the order given.
type Param struct{ Key, Value string }

const dsnForms = "use sqlite:PATH, mysql://user:pass@host:port[,host:port...]/db or user:pass@tcp(host:port)/db"

// ParseDSN parses a --db value. A malformed one is ErrBadInput naming the column and the fix,
// quoting the offending text only where it cannot be part of the password.
func ParseDSN(s string) (DSN, error) {
	d, err := parseDSN(s)
	if e, ok := err.(*dsnErr); ok {
		e.hide(s)
	}
	return d, err
}

func parseDSN(s string) (DSN, error) {
	scheme, hasScheme := urlScheme(s)
	switch {
	case s == "":
		return DSN{}, dsnError(1, "empty DSN: "+dsnForms)
	case strings.HasPrefix(s, "sqlite:"):
		return parseSQLite(s)
	case scheme == "mysql":
		return parseMySQLURL(s)
	case hasScheme:
		return DSN{}, dsnError(1, "unknown store %q: "+dsnForms, scheme)
	case strings.Contains(s, "/") && (strings.Contains(s, "@") || strings.Contains(s, "(")):
		return parseGoMySQL(s)
	}
	if !strings.ContainsAny(s, "@:") {
		return DSN{}, dsnError(1, "not a DSN (for a file, write sqlite:%s): "+dsnForms, s)
	}
	// Do not echo s: it may hold a password.
	return DSN{}, dsnError(1, "not a DSN: "+dsnForms)
}

func parseSQLite(s string) (DSN, error) {
	path := strings.TrimPrefix(s, "sqlite:")
	// sqlite:///abs/path is the URL spelling of sqlite:/abs/path.
	path = strings.TrimPrefix(path, "//")
	if path == "" {
		return DSN{}, dsnError(len("sqlite:")+1, "missing the database file after sqlite: (e.g. sqlite:kupgrade.db)")
	}
	return DSN{Driver: "sqlite", Path: path}, nil
}

func parseMySQLURL(s string) (DSN, error) {
	d := DSN{Driver: "mysql", Net: "tcp"}
	off := len("mysql://")
	rest := s[off:]
	// The user info runs to the last '@' (a password may hold '/', '?' or '@'); the query starts
	// at the first '?' after it.
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		if err := d.setUserInfo(rest[:at], off+1, true); err != nil {
			return DSN{}, err
		}
		off += at + 1
		rest = rest[at+1:]
	}
	main, query, hasQuery := strings.Cut(rest, "?")
	authority, db, hasSlash := strings.Cut(main, "/")
	if !hasSlash || db == "" {
		return DSN{}, dsnError(off+len(main)+1, "missing the database name (add /kupgrade after the host)")
	}
	if authority == "" {
		return DSN{}, dsnError(off+1, "missing the host (e.g. mysql://user:pass@127.0.0.1:3306/kupgrade)")
	}
	addr, err := hostPorts(authority, off+1)
	if err != nil {
		return DSN{}, err
	}
	d.Addr = addr
	if err := d.setDatabase(db, off+len(authority)+2, true); err != nil {
		return DSN{}, err
	}
	if hasQuery {
		if err := d.setParams(query, len(s)-len(query)+1); err != nil {
			return DSN{}, err
		}
	}
	return d, nil
}

// parseGoMySQL parses [user[:password]@][net[(addr)]]/dbname[?params], splitting where
// go-sql-driver/mysql does: the database after the last '/', the user before the last '@'.
func parseGoMySQL(s string) (DSN, error) {
	d := DSN{Driver: "mysql"}
	qStart := len(s)
	if i := strings.IndexByte(s[strings.LastIndexByte(s, ')')+1:], '?'); i >= 0 {
		qStart = strings.LastIndexByte(s, ')') + 1 + i
	}
	main := s[:qStart]
	slash := strings.LastIndexByte(main, '/')
	if slash < 0 {
		return DSN{}, dsnError(len(main)+1, "missing /DATABASE after the address (e.g. user:pass@tcp(127.0.0.1:3306)/kupgrade)")
	}
	if err := d.setDatabase(main[slash+1:], slash+2, false); err != nil {
		return DSN{}, err
	}
	before := main[:slash]
	netStart := 0
	if at := strings.LastIndexByte(before, '@'); at >= 0 {
		if err := d.setUserInfo(before[:at], 1, false); err != nil {
			return DSN{}, err
		}
		netStart = at + 1
	}
	if err := d.setNetAddr(before[netStart:], netStart+1); err != nil {
		return DSN{}, err
	}
	if qStart < len(s) {
		if err := d.setParams(s[qStart+1:], qStart+2); err != nil {
			return DSN{}, err
		}
	}
	return d, nil
}

func (d *DSN) setUserInfo(info string, col int, escaped bool) error {
	user, pass, _ := strings.Cut(info, ":")
	if escaped {
		var err error
		if user, err = url.PathUnescape(user); err != nil {
			return dsnError(col, "bad %%-escape in the user name")
		}
		if pass, err = url.PathUnescape(pass); err != nil {
			// Do not echo the password, not even in part.
			return dsnError(col+len(user)+1, "bad %%-escape in the password (write %%25 for a literal %%)")
		}
	}
	if user == "" {
		return dsnError(col, "empty user name before ':' (e.g. kupgrade:secret@...)")
	}
	d.User, d.Password = user, pass
	return nil
}

func (d *DSN) setNetAddr(na string, col int) error {
	switch {
	case na == "":
		d.Net, d.Addr = "tcp", "127.0.0.1:3306"
		return nil
	case !strings.Contains(na, "("):
		d.Net = na
	default:
		open := strings.IndexByte(na, '(')
		if !strings.HasSuffix(na, ")") {
			return dsnError(col+len(na), "missing ')' after the address (e.g. tcp(127.0.0.1:3306))")
		}
		d.Net, d.Addr = na[:open], na[open+1:len(na)-1]
	}
	switch d.Net {
	case "tcp":
		if d.Addr == "" {
			d.Addr = "127.0.0.1:3306"
			return nil
		}
		addr, err := hostPorts(d.Addr, col+len("tcp("))
		d.Addr = addr
		return err
	case "unix":
		if d.Addr == "" {
			return dsnError(col+len("unix("), "missing the socket path in unix(...)")
		}
		return nil
	}
	return dsnError(col, "unknown network %q (use tcp(host:port) or unix(/path/to/socket))", d.Net)
}

// hostPorts checks a list of host[:port] separated by ',' (the servers of one Galera cluster,
// say) and returns them, each with its port, joined by ','.
func hostPorts(list string, col int) (string, error) {
	var out []string
	for hp := range strings.SplitSeq(list, ",") {
		if hp == "" {
			return "", dsnError(col, "empty host in the list of servers (write host:port,host:port)")
		}
		addr, err := hostPort(hp, col)
		if err != nil {
			return "", err
		}
		out = append(out, addr)
		col += len(hp) + 1
	}
	return strings.Join(out, ","), nil
}

// hostPort checks host[:port] (IPv6 in brackets) and adds MySQL's default port.
func hostPort(hp string, col int) (string, error) {
	host, port, err := net.SplitHostPort(hp)
	if err != nil {
		if strings.Contains(err.Error(), "missing port") {
			host, port = strings.Trim(hp, "[]"), "3306"
		} else {
			return "", dsnError(col, "bad host:port %q (IPv6 goes in brackets: [::1]:3306)", hp)
		}
	}
	if host == "" {
		return "", dsnError(col, "missing the host before the port %q", port)
	}
	if strings.ContainsAny(host, "/@?#()[] \t") {
		return "", dsnError(col, "bad host %q (a name or an IP address)", host)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", dsnError(col+strings.LastIndexByte(hp, ':')+1, "bad port %q (a number from 1 to 65535)", port)
	}
	return net.JoinHostPort(host, port), nil
}

func (d *DSN) setDatabase(db string, col int, escaped bool) error {
	if escaped {
		var err error
		if db, err = url.PathUnescape(db); err != nil {
			return dsnError(col, "bad %%-escape in the database name")
		}
	}
	if db == "" {
		return dsnError(col, "missing the database name (e.g. .../kupgrade)")
	}
	if strings.ContainsAny(db, "/\\.` ") {
		return dsnError(col, "database name %q may not contain '/', '\\', '.', '`' or spaces", db)
	}
	d.Database = db
	return nil
}

func (d *DSN) setParams(query string, col int) error {
	for part := range strings.SplitSeq(query, "&") {
		key, raw, ok := strings.Cut(part, "=")
		if !ok || key == "" {
			return dsnError(col, "parameter %q is not key=value", part)
		}
		if strings.Trim(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
			return dsnError(col, "parameter name %q: letters, digits and '_' only", key)
		}
		val, err := url.QueryUnescape(raw)
		if err != nil {
			return dsnError(col+len(key)+1, "bad %%-escape in the value of %q", key)
		}
		d.Params = append(d.Params, Param{key, val})
		col += len(part) + 1
	}
	return nil
}
