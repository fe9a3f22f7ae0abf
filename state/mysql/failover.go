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
// Connections already open to a server that dies fail once each and are dropped by the pool.
type failover struct {
	addrs      []string
	connectors []driver.Connector
	cur        atomic.Int64
	log        *slog.Logger
}

func newFailover(cfg *gomysql.Config, addrs []string, log *slog.Logger) (*failover, error) {
	f := &failover{addrs: addrs, log: log}
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
	return conn, nil
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
