package mysql

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"time"

	driver "github.com/go-sql-driver/mysql"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// MySQL error numbers the store reacts to.
const (
	errDupEntry     = 1062
	errLockWait     = 1205
	errLockDeadlock = 1213
	// errNotReady: a Galera node out of service refused the statement, which did nothing
	// (WSREP has not yet prepared node for application use).
	errNotReady = 1047
	// errUnknownVariable: MySQL, which has no wsrep_on.
	errUnknownVariable = 1193
)

// The data errors: the server refused a value of the statement (strict mode), and refuses it
// again however often it is sent.
var dataErrors = map[uint16]bool{
	1048: true, // column cannot be null
	1264: true, // out of range value
	1265: true, // data truncated
	1292: true, // incorrect (datetime, double...) value
	1300: true, // invalid (utf8mb4) character string
	1366: true, // incorrect string value: not valid UTF-8 for the column
	1367: true, // illegal value found during parsing
	1406: true, // data too long for column
	3988: true, // conversion from collation impossible
}

// dataError reports a data error: the value is refused, final (state.ErrValueRefused).
func dataError(err error) bool { return dataErrors[number(err)] }

func number(err error) uint16 {
	var e *driver.MySQLError
	if errors.As(err, &e) {
		return e.Number
	}
	return 0
}

// lostConn reports an error that means the connection to the server was lost or could not be
// made (the server died, restarted, or stopped answering): a transaction cut before its COMMIT
// was rolled back by the server, and runs again on a new connection (through the failover).
func lostConn(err error) bool {
	var ne net.Error
	return errors.Is(err, sqldriver.ErrBadConn) || errors.Is(err, driver.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// retryable: the server aborted the transaction (a deadlock, Galera's certification), a lock
// wait timed out, or a Galera node refused it before it did anything (on the next run the
// failover connects to another node).
func retryable(err error) bool {
	switch number(err) {
	case errLockDeadlock, errLockWait, errNotReady:
		return true
	}
	return false
}

var dialect = func() *sqlstore.Dialect {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err)
	}
	return &sqlstore.Dialect{
		Name:       "mysql",
		Migrations: sub,
		NowSQL:     "SELECT UTC_TIMESTAMP(6)",
		MigrationsTable: `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INT NOT NULL PRIMARY KEY, name VARCHAR(255) NOT NULL, applied_at DATETIME(6) NOT NULL
			) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin`,
		ForUpdate: " FOR UPDATE",
		UpsertHost: `INSERT INTO host (cluster, hostname, personality, control_plane_version, kubelet_version)
			VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE
			personality = VALUES(personality),
			control_plane_version = COALESCE(VALUES(control_plane_version), control_plane_version),
			kubelet_version = COALESCE(VALUES(kubelet_version), kubelet_version)`,
		Retryable:   retryable,
		Duplicate:   func(err error) bool { return number(err) == errDupEntry },
		Refused:     dataError,
		Lost:        lostConn,
		MigrateLock: migrateLock,
	}
}()

// Store is the MySQL state.Store.
type Store struct {
	*sqlstore.Store
	// Galera is true when the server is a node of a Galera cluster (wsrep_on).
	Galera bool
}

// Open connects to the database d names (parsed once by state.ParseDSN) and migrates it when
// a migration is pending. The database must exist; its tables are created on first use. No
// error, and no diagnostic of the driver (sent to Options.Log), contains the password.
func Open(ctx context.Context, d state.DSN, opts ...state.Option) (*Store, error) {
	if d.Driver != "mysql" {
		return nil, fmt.Errorf("%w: open mysql: %s is not a MySQL DSN", state.ErrBadInput, d.Redacted())
	}
	o := state.NewOptions(opts...)
	cfg, err := config(d, o.Log)
	if err != nil {
		return nil, err
	}
	galera, start, err := isGalera(ctx, cfg, d, o.Log)
	if err != nil {
		return nil, fmt.Errorf("open mysql %s: %w", d.Redacted(), err)
	}
	if galera && !given(d, "wsrep_sync_wait") {
		// A statement sees every write the cluster committed before it, whichever node wrote it:
		// `upgrade show` on node 2 right after `upgrade start` on node 1 sees the upgrade, and
		// an UPDATE outside a transaction (SetVersions) finds its row. 7: reads and BEGIN (1),
		// UPDATE and DELETE (2), INSERT and REPLACE (4).
		cfg.Params = withParam(cfg.Params, "wsrep_sync_wait", "7")
	}
	conn, err := connector(cfg, d, start, o.Log)
	if err != nil {
		return nil, fmt.Errorf("%w: open mysql %s: %w", state.ErrBadInput, d.Redacted(), err)
	}
	counted, counter := sqlstore.Counting(conn)
	db := sql.OpenDB(counted)
	// Stay below the server's wait_timeout, and keep a few connections warm for the audit.
	db.SetConnMaxLifetime(5 * time.Minute)
	db.SetMaxIdleConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open mysql %s: %w", d.Redacted(), err)
	}
	d0 := dialect
	if galera {
		// GET_LOCK holds on one node only: migrations take a row the cluster replicates.
		g := *dialect
		g.MigrateLock = rowMigrateLock
		d0 = &g
	}
	s, err := sqlstore.New(ctx, db, d0, nil, opts...)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open mysql %s: %w", d.Redacted(), err)
	}
	s.CountWith(counter)
	return &Store{Store: s, Galera: galera}, nil
}

// connector is go-sql-driver's for a DSN naming one server, the failover for several, starting
// with the start-th server.
func connector(cfg *driver.Config, d state.DSN, start int, log *slog.Logger) (sqldriver.Connector, error) {
	if addrs := d.Addrs(); len(addrs) > 1 {
		f, err := newFailover(cfg, addrs, log)
		if err != nil {
			return nil, err
		}
		f.cur.Store(int64(start))
		return f, nil
	}
	return driver.NewConnector(cfg)
}

// isGalera asks a server of the DSN whether it is a Galera node (wsrep_on); MySQL, which has no
// such variable, is not. It also returns the server that answered, for the store to start with.
func isGalera(ctx context.Context, cfg *driver.Config, d state.DSN, log *slog.Logger) (galera bool, server int, err error) {
	conn, err := connector(cfg, d, 0, log)
	if err != nil {
		return false, 0, fmt.Errorf("%w: %w", state.ErrBadInput, err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var on sql.NullString
	err = db.QueryRowContext(ctx, "SELECT @@wsrep_on").Scan(&on)
	if f, ok := conn.(*failover); ok {
		server = int(f.cur.Load())
	}
	if number(err) == errUnknownVariable {
		return false, server, nil
	}
	if err != nil {
		return false, 0, err
	}
	return on.String == "1" || strings.EqualFold(on.String, "ON"), server, nil
}

func withParam(params map[string]string, key, value string) map[string]string {
	if params == nil {
		params = map[string]string{}
	}
	params[key] = value
	return params
}
