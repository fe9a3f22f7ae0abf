package lab

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the DSN this package hands out is go-sql-driver's
	"github.com/ory/dockertest/v3"
	docker "github.com/ory/dockertest/v3/docker"
)

// MariaDB is a MariaDB server in a lab container, with a database "kupgrade".
type MariaDB struct {
	Name      string // container name, also its kupgrade-lab label
	User      string
	Password  string
	Port      int // on 127.0.0.1
	pool      *dockertest.Pool
	container string
	galera    bool // a node of a Galera cluster: ready means synced (wsrep_ready=ON)
}

// DSN is the go-sql-driver DSN of the kupgrade database.
func (m *MariaDB) DSN() string {
	return fmt.Sprintf("%s:%s@tcp(127.0.0.1:%d)/kupgrade?parseTime=false", m.User, m.Password, m.Port)
}

// StartMariaDB runs MariaDB for a test and removes it in t.Cleanup.
func StartMariaDB(t testing.TB) *MariaDB {
	t.Helper()
	RequireDocker(t)
	return startForTest(t, "mariadb", time.Minute, func() (*MariaDB, error) { return UpMariaDB(t.Context(), TestExpiry, testWriter{t}) })
}

// UpMariaDB runs MariaDB from the lab image and returns once `SELECT 1` succeeds through the
// DSN. expire > 0 makes the container stop on its own after that long.
func UpMariaDB(ctx context.Context, expire time.Duration, log io.Writer) (*MariaDB, error) {
	image, err := EnsureImage(ctx, log)
	if err != nil {
		return nil, err
	}
	pool, err := newPool()
	if err != nil {
		return nil, err
	}
	sweepExpired(ctx, pool.Client)
	m := &MariaDB{Name: "kupgrade-lab-mariadb-" + randomHex(4), User: "kupgrade", Password: randomHex(12), pool: pool}
	labels := labelsOf(m.Name, expire)
	env := []string{"LAB_DB_USER=" + m.User, "LAB_DB_PASSWORD=" + m.Password}
	if err := m.run(ctx, image, labels, "", "/usr/local/sbin/kupgrade-lab-mariadb", env, expire); err != nil {
		_ = m.Purge(context.WithoutCancel(ctx))
		return nil, err
	}
	if err := m.waitReady(ctx); err != nil {
		_ = m.Purge(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("wait for mariadb: %w", err)
	}
	return m, nil
}

// run starts the server's container (on network when not ""), its port 3306 published on a
// port of 127.0.0.1 of our choosing, so that the server keeps it across Stop and Start.
func (m *MariaDB) run(ctx context.Context, image string, labels map[string]string, network, cmd string, env []string, expire time.Duration) error {
	var err error
	if m.Port, err = freePort(); err != nil {
		return err
	}
	repo, tag, _ := strings.Cut(image, ":")
	hostname := "mariadb"
	if network != "" {
		hostname = m.Name // the Galera nodes find each other by name
	}
	res, err := m.pool.RunWithOptions(&dockertest.RunOptions{
		Name: m.Name, Hostname: hostname, Repository: repo, Tag: tag, Labels: labels, NetworkID: network,
		Cmd: []string{cmd}, Env: env, ExposedPorts: []string{"3306/tcp"},
		PortBindings: map[docker.Port][]docker.PortBinding{"3306/tcp": {{HostIP: "127.0.0.1", HostPort: strconv.Itoa(m.Port)}}},
	}, func(hc *docker.HostConfig) { hc.PublishAllPorts = false })
	if err != nil {
		return fmt.Errorf("start %s: %w", m.Name, err)
	}
	if expire > 0 {
		_ = res.Expire(uint(expire.Seconds()))
	}
	m.container = res.Container.ID
	return nil
}

// waitReady returns once `SELECT 1` succeeds through the DSN; a Galera node, once it is synced
// with its cluster and takes queries (wsrep_ready=ON).
func (m *MariaDB) waitReady(ctx context.Context) error {
	m.pool.MaxWait = 90 * time.Second
	err := m.pool.Retry(func() error {
		if ctx.Err() != nil {
			return nil
		}
		db, err := sql.Open("mysql", m.DSN())
		if err != nil {
			return err
		}
		defer db.Close()
		if !m.galera {
			var one int
			return db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
		}
		var name, ready string
		if err := db.QueryRowContext(ctx, "SHOW STATUS LIKE 'wsrep_ready'").Scan(&name, &ready); err != nil {
			return err
		}
		if ready != "ON" {
			return fmt.Errorf("%s: wsrep_ready=%s", m.Name, ready)
		}
		return nil
	})
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// Stop kills the server at once, as a crash or a power cut would; its data stays.
func (m *MariaDB) Stop(ctx context.Context) error {
	if err := m.pool.Client.StopContainerWithContext(m.container, 0, ctx); err != nil {
		return fmt.Errorf("stop mariadb: %w", err)
	}
	return nil
}

// Start starts a stopped server again, on the same port, and waits until it answers.
func (m *MariaDB) Start(ctx context.Context) error {
	if err := m.pool.Client.StartContainerWithContext(m.container, nil, ctx); err != nil {
		return fmt.Errorf("start mariadb: %w", err)
	}
	return m.waitReady(ctx)
}

// Pause freezes the server: connections stay open and every statement hangs, as behind a
// black-holed network. Unpause thaws it.
func (m *MariaDB) Pause(ctx context.Context) error {
	if err := m.pool.Client.PauseContainer(m.container); err != nil {
		return fmt.Errorf("pause mariadb: %w", err)
	}
	return nil
}

// Unpause thaws a paused server.
func (m *MariaDB) Unpause(ctx context.Context) error {
	if err := m.pool.Client.UnpauseContainer(m.container); err != nil {
		return fmt.Errorf("unpause mariadb: %w", err)
	}
	return nil
}

// Purge removes the MariaDB container.
func (m *MariaDB) Purge(ctx context.Context) error {
	return removeLabelled(ctx, m.pool.Client, m.Name)
}
