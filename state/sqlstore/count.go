package sqlstore

import (
	"context"
	"database/sql/driver"
	"sync/atomic"
)

// Counts are the database work of one store: transactions begun and statements sent (each
// Exec or Query, a statement prepared and run counted once), for `fleet run`'s cost per cluster.
type Counts struct {
	Transactions, Statements int64
}

// Counter counts the transactions and statements of the connections of one connector; a
// Store reads it through Counts. The zero Counter is ready.
type Counter struct{ tx, stmts atomic.Int64 }

// Counts returns what the counter counted so far.
func (c *Counter) Counts() Counts { return Counts{c.tx.Load(), c.stmts.Load()} }

// Counting wraps a connector so that its connections count their transactions and statements
// in the Counter it returns.
func Counting(c driver.Connector) (driver.Connector, *Counter) {
	n := &Counter{}
	return countingConnector{c, n}, n
}

// DSNConnector is a connector for a driver that has none of its own.
func DSNConnector(d driver.Driver, dsn string) driver.Connector { return dsnConnector{d, dsn} }

type dsnConnector struct {
	d   driver.Driver
	dsn string
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.d }

type countingConnector struct {
	driver.Connector
	n *Counter
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{conn, c.n}, nil
}

// countingConn forwards every optional interface of database/sql to the driver's connection,
// answering as database/sql's own fallback would where the driver has none.
type countingConn struct {
	driver.Conn
	n *Counter
}

func (c *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	c.n.tx.Add(1)
	if b, ok := c.Conn.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, opts)
	}
	return c.Conn.Begin() //nolint:staticcheck // the driver has nothing else
}

func (c *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var s driver.Stmt
	var err error
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		s, err = p.PrepareContext(ctx, query)
	} else {
		s, err = c.Conn.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return countingStmt{s, c.n}, nil
}

func (c *countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	r, err := e.ExecContext(ctx, query, args)
	if err != driver.ErrSkip { //nolint:errorlint // the sentinel itself, as database/sql compares it
		c.n.stmts.Add(1)
	}
	return r, err
}

func (c *countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	r, err := q.QueryContext(ctx, query, args)
	if err != driver.ErrSkip { //nolint:errorlint // the sentinel itself, as database/sql compares it
		c.n.stmts.Add(1)
	}
	return r, err
}

func (c *countingConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *countingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *countingConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *countingConn) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := c.Conn.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// countingStmt counts the runs of a prepared statement.
type countingStmt struct {
	driver.Stmt
	n *Counter
}

func (s countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.n.stmts.Add(1)
	if e, ok := s.Stmt.(driver.StmtExecContext); ok {
		return e.ExecContext(ctx, args)
	}
	return s.Stmt.Exec(values(args)) //nolint:staticcheck // the driver has nothing else
}

func (s countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.n.stmts.Add(1)
	if q, ok := s.Stmt.(driver.StmtQueryContext); ok {
		return q.QueryContext(ctx, args)
	}
	return s.Stmt.Query(values(args)) //nolint:staticcheck // the driver has nothing else
}

func (s countingStmt) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := s.Stmt.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

func values(args []driver.NamedValue) []driver.Value {
	out := make([]driver.Value, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}

// Counts returns the transactions and statements this store sent, when it was opened on a
// connector wrapped by Counting and given to CountWith; zero otherwise.
func (s *Store) Counts() Counts {
	if s.counter == nil {
		return Counts{}
	}
	return s.counter.Counts()
}

// CountWith makes Counts read c: the counter Counting returned for the store's connector.
func (s *Store) CountWith(c *Counter) { s.counter = c }
