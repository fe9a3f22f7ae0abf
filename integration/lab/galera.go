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

	"github.com/ory/dockertest/v3"
	docker "github.com/ory/dockertest/v3/docker"
)

// Galera is a 3-node MariaDB Galera cluster in lab containers on a network of its own, with a
// database "kupgrade" replicated to every node. Each node is a *MariaDB (its DSN, Stop, Start,
// Pause): Stop kills one node as a crash would, Start brings it back into the cluster (it
// rejoins by state transfer) and returns once it is synced.
type Galera struct {
	Name  string // label of the containers and the network
	Nodes []*MariaDB
	pool  *dockertest.Pool
}

// GaleraSize is the number of nodes StartGalera starts: the smallest cluster that keeps a
// majority (and so keeps accepting writes) when one node stops.
const GaleraSize = 3

// DSNs are the go-sql-driver DSNs of the nodes, in order.
func (g *Galera) DSNs() []string {
	var out []string
	for _, n := range g.Nodes {
		out = append(out, n.DSN())
	}
	return out
}

// URL is the mysql:// DSN kupgrade takes that names every node, in order:
// mysql://user:pass@127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/kupgrade.
func (g *Galera) URL() string {
	var addrs []string
	for _, n := range g.Nodes {
		addrs = append(addrs, "127.0.0.1:"+strconv.Itoa(n.Port))
	}
	n := g.Nodes[0]
	return fmt.Sprintf("mysql://%s:%s@%s/kupgrade", n.User, n.Password, strings.Join(addrs, ","))
}

// StartGalera runs a Galera cluster for a test and removes it in t.Cleanup.
func StartGalera(t testing.TB) *Galera {
	t.Helper()
	RequireDocker(t)
	return startForTest(t, "galera", time.Minute, func() (*Galera, error) { return UpGalera(t.Context(), TestExpiry, testWriter{t}) })
}

// UpGalera bootstraps the first node, joins the other two, and returns once every node reports
// wsrep_ready=ON and wsrep_cluster_size=3. expire > 0 makes the containers stop on their own
// after that long.
func UpGalera(ctx context.Context, expire time.Duration, log io.Writer) (*Galera, error) {
	image, err := EnsureImage(ctx, log)
	if err != nil {
		return nil, err
	}
	pool, err := newPool()
	if err != nil {
		return nil, err
	}
	sweepExpired(ctx, pool.Client)
	g := &Galera{Name: "kupgrade-lab-galera-" + randomHex(4), pool: pool}
	if err := g.create(ctx, image, expire); err != nil {
		_ = g.Purge(context.WithoutCancel(ctx))
		return nil, err
	}
	fmt.Fprintf(log, "lab: galera %s: %d nodes synced\n", g.Name, len(g.Nodes))
	return g, nil
}

func (g *Galera) create(ctx context.Context, image string, expire time.Duration) error {
	labels := labelsOf(g.Name, expire)
	network, err := g.pool.Client.CreateNetwork(docker.CreateNetworkOptions{Name: g.Name, Driver: "bridge", Labels: labels, Context: ctx})
	if err != nil {
		return fmt.Errorf("create network %s: %w", g.Name, err)
	}
	password := randomHex(12)
	var names []string
	for i := range GaleraSize {
		names = append(names, fmt.Sprintf("%s-%d", g.Name, i+1))
	}
	for i, name := range names {
		n := &MariaDB{Name: name, User: "kupgrade", Password: password, pool: g.pool, galera: true}
		env := []string{"LAB_DB_USER=" + n.User, "LAB_DB_PASSWORD=" + n.Password, "LAB_GALERA_NODE=" + name,
			"LAB_GALERA_NODES=" + strings.Join(names, ","), "LAB_GALERA_BOOTSTRAP=" + strconv.Itoa(boolInt(i == 0))}
		if err := n.run(ctx, image, labels, network.ID, "/usr/local/sbin/kupgrade-lab-galera", env, expire); err != nil {
			return err
		}
		g.Nodes = append(g.Nodes, n)
		// The first node must be the primary component before the others ask to join it.
		if err := n.waitReady(ctx); err != nil {
			return fmt.Errorf("wait for galera node %s: %w", name, err)
		}
	}
	for _, n := range g.Nodes {
		if err := n.waitSize(ctx, GaleraSize); err != nil {
			return err
		}
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// waitSize returns once the node counts size members in its cluster.
func (m *MariaDB) waitSize(ctx context.Context, size int) error {
	db, err := sql.Open("mysql", m.DSN())
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(90 * time.Second)
	for {
		var name string
		var n int
		err := db.QueryRowContext(ctx, "SHOW STATUS LIKE 'wsrep_cluster_size'").Scan(&name, &n)
		if err == nil && n == size {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("galera node %s: cluster size %d, want %d (%v)", m.Name, n, size, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Purge removes the nodes and the network.
func (g *Galera) Purge(ctx context.Context) error {
	return removeLabelled(ctx, g.pool.Client, g.Name)
}

// URL is the mysql:// DSN kupgrade takes for this one server.
func (m *MariaDB) URL() string {
	return fmt.Sprintf("mysql://%s:%s@127.0.0.1:%d/kupgrade", m.User, m.Password, m.Port)
}

// GaleraState is what `kupgrade-lab galera up` keeps in its folder to find the cluster again.
type GaleraState struct {
	Name     string `json:"name"`
	User     string `json:"user"`
	Password string `json:"password"`
	Ports    []int  `json:"ports"`
}

// State returns what AttachGalera needs.
func (g *Galera) State() GaleraState {
	st := GaleraState{Name: g.Name, User: g.Nodes[0].User, Password: g.Nodes[0].Password}
	for _, n := range g.Nodes {
		st.Ports = append(st.Ports, n.Port)
	}
	return st
}

// AttachGalera finds the running cluster st describes (started by another process).
func AttachGalera(ctx context.Context, st GaleraState) (*Galera, error) {
	pool, err := newPool()
	if err != nil {
		return nil, err
	}
	g := &Galera{Name: st.Name, pool: pool}
	for i, port := range st.Ports {
		name := fmt.Sprintf("%s-%d", st.Name, i+1)
		c, err := pool.Client.InspectContainer(name)
		if err != nil {
			return nil, fmt.Errorf("find galera node %s: %w", name, err)
		}
		g.Nodes = append(g.Nodes, &MariaDB{Name: name, User: st.User, Password: st.Password, Port: port,
			pool: pool, container: c.ID, galera: true})
	}
	return g, nil
}

// RootSQL runs statements on the server as its root user (docker exec mariadb), for what the
// kupgrade user may not do: SET GLOBAL wsrep_reject_queries, say. It returns the output.
func (m *MariaDB) RootSQL(ctx context.Context, stmts string) (string, error) {
	out, err := execIn(ctx, m.pool.Client, m.container, nil, "mariadb", "-N", "-e", stmts)
	if err != nil {
		return out, fmt.Errorf("%s: %s: %w", m.Name, stmts, err)
	}
	return out, nil
}
