package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"

	gomysql "github.com/go-sql-driver/mysql"
)

// failover is the connector of a DSN that names several servers of one replicated cluster
// (Galera): a new connection goes to the server the previous one reached and, when that one
// does not answer or is not ready for queries (a Galera node out of the primary component
// answers 1047), to the next in the DSN's order, wrapping around. It stays on the server that
// answered, so that one process writes through one node while that node lives (a write on a
// second node certifies against the first, at commit, and costs a retry when they conflict).
// Connections already open to a server that dies fail once each and are dropped by the pool;
// so are those to a node that refuses queries (see nodeConn).
type failover struct {
	addrs      []string
	connectors []driver.Connector
	cur        atomic.Int64
	// outs counts, per server, the times a connection found it out of service: a connection
	// opened before the last time is dropped at its next use.
	outs []atomic.Int64
	log  *slog.Logger
}

func newFailover(cfg *gomysql.Config, addrs []string, log *slog.Logger) (*failover, error) {
	f := &failover{addrs: addrs, log: log, outs: make([]atomic.Int64, len(addrs))}
	for _, a := range addrs {
		c := cfg.Clone()
		c.Addr = a
		conn, err := gomysql.NewConnector(c)
		if err != nil {
			return nil, err
		}
		f.connectors = append(f.connectors, conn)
	}
	return f, nil
}

// Connect connects to the current server, or to the next that answers and is ready.
func (f *failover) Connect(ctx context.Context) (driver.Conn, error) {
	start := int(f.cur.Load())
	var errs []error
	for i := range f.connectors {
		k := (start + i) % len(f.connectors)
		conn, err := f.connect(ctx, k)
		if err == nil {
			if k != start && f.cur.CompareAndSwap(int64(start), int64(k)) {
				f.log.Warn("mysql: moved to the next server of the DSN", "server", f.addrs[k], "after", errors.Join(errs...))
			}
			return conn, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", f.addrs[k], err))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("no server of the DSN answers: %w", errors.Join(errs...))
}

// connect opens a connection to server k and checks that it takes queries.
func (f *failover) connect(ctx context.Context, k int) (driver.Conn, error) {
	conn, err := f.connectors[k].Connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := ready(ctx, conn); err != nil {
		conn.Close()
		return nil, err
	}
	if _, ok := conn.(fullConn); !ok {
		return conn, nil
	}
	return &nodeConn{Conn: conn, f: f, server: k, epoch: f.outs[k].Load()}, nil
}

// outOfService records that server k refused a statement: every connection to it is dropped at
// its next use, and new ones start with the next server.
func (f *failover) outOfService(k int) {
	f.outs[k].Add(1)
	if f.cur.CompareAndSwap(int64(k), int64((k+1)%len(f.addrs))) {
		f.log.Warn("mysql: the server refuses queries (not in service); moving to the next of the DSN", "server", f.addrs[k])
	}
}

// ready runs SELECT 1 on a fresh connection: a Galera node that is not synced with the primary
// component accepts the connection but refuses every query (1047, WSREP has not yet prepared
// node for application use).
func ready(ctx context.Context, conn driver.Conn) error {
	q, ok := conn.(driver.QueryerContext)
	if !ok {
		return nil
	}
	rows, err := q.QueryContext(ctx, "SELECT 1", nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// Driver is go-sql-driver's.
func (f *failover) Driver() driver.Driver { return f.connectors[0].Driver() }

// nodeConn is a connection the failover opened. A statement the node refuses because it is not
// in service (1047: it left the cluster's primary component, or an operator set
// wsrep_reject_queries) marks the node out: the pool then drops every connection to it instead
// of reusing it, and the transaction, run again (Dialect.Retryable), gets a new connection, on
// the next node.
type nodeConn struct {
	driver.Conn
	f      *failover
	server int
	epoch  int64 // f.outs[server] when the connection was opened
}

// The interfaces go-sql-driver's connection has and database/sql uses.
type fullConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
	driver.NamedValueChecker
}

var _ fullConn = (*nodeConn)(nil)

func (c *nodeConn) inner() fullConn { return c.Conn.(fullConn) }

// check marks the node out when err says it is not in service.
func (c *nodeConn) check(err error) error {
	if number(err) == errNotReady {
		c.f.outOfService(c.server)
	}
	return err
}

// out reports whether the node was found out of service since the connection was opened.
func (c *nodeConn) out() bool { return c.f.outs[c.server].Load() != c.epoch }

func (c *nodeConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.inner().BeginTx(ctx, opts)
	return tx, c.check(err)
}

func (c *nodeConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.inner().PrepareContext(ctx, query)
	return st, c.check(err)
}

func (c *nodeConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.inner().ExecContext(ctx, query, args)
	return r, c.check(err)
}

func (c *nodeConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.inner().QueryContext(ctx, query, args)
	return r, c.check(err)
}

func (c *nodeConn) Ping(ctx context.Context) error { return c.check(c.inner().Ping(ctx)) }

func (c *nodeConn) ResetSession(ctx context.Context) error {
	if c.out() {
		return driver.ErrBadConn
	}
	return c.inner().ResetSession(ctx)
}

func (c *nodeConn) IsValid() bool { return !c.out() && c.inner().IsValid() }

func (c *nodeConn) CheckNamedValue(nv *driver.NamedValue) error { return c.inner().CheckNamedValue(nv) }
