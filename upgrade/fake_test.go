package upgrade_test

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
	"github.com/kupgrade/kupgrade/upgrade"
)

const twoPlusOne = `all:
  children:
    controllers:
      hosts:
        controller-0:
        controller-1:
    workers:
      hosts:
        worker-0:
`

// cluster is a simulated cluster behind a fake runner: what each host reports, and what each
// playbook does to it. Tests script failures through onPlay.
type cluster struct {
	mu      sync.Mutex
	target  string
	snaps   map[string]kubeadm.Snapshot // what the probe reads
	kubelet map[string]string           // what `kubelet --version` prints (through the probe)
	kubeadm map[string]string           // what `kubeadm version -o short` prints (through the probe)
	plays   []string                    // "playbook@limit" ("playbook:tag@limit" for a phase), in order
	down    map[string]error            // hosts that cannot be reached
	// onPlay runs before the default behaviour; handled=true skips it.
	onPlay func(ctx context.Context, name, limit string) (recap *runner.Recap, err error, handled bool)
	// results answer the commands run over a host's connection outside a play.
	results map[string]runnertest.Result
	// answer, when set, answers a command run on host over its connection before results do
	// (ok=false: results answer it). Called without c.mu held.
	answer func(host, cmd string) (out string, ok bool)
	vars   []map[string]any            // each play's extra variables, in order
	gate   func(context.Context) error // the last play's PlayOptions.Gate
	fence  *runner.Fence               // the last play's PlayOptions.Fence
	// stale are nodes whose kubelet the API server still reports at the given version, whatever
	// the host runs (a node status not updated yet).
	stale map[string]string
	// staleAnswers, when positive, is how many more answers report stale; then it is cleared.
	staleAnswers int
	nodes        []string // the inventory's nodes (Nodes): what the API server lists
	// cordoned are nodes kupgrade's drain cordoned and no uncordon lifted yet: the version of
	// their annotation (health.CordonMark).
	cordoned map[string]string
	// onNodes runs once, after the API server answered its next list of nodes (confirmSkips's)
	// and before the caller reads the answer.
	onNodes func()
}

func newCluster(from string) *cluster {
	c := &cluster{snaps: map[string]kubeadm.Snapshot{}, kubelet: map[string]string{}, kubeadm: map[string]string{}, down: map[string]error{}, cordoned: map[string]string{}}
	for _, h := range []string{"controller-0", "controller-1"} {
		c.snaps[h] = snapAt(from, "sha-old", false)
	}
	c.snaps["worker-0"] = kubeadm.Snapshot{Taken: time.Now(), ConfigExists: true, ConfigSHA256: "sha-old"}
	for _, h := range []string{"controller-0", "controller-1", "worker-0"} {
		c.kubelet[h], c.kubeadm[h] = from, from
	}
	return c
}

// snapAt is a controller whose manifests are at v; backup says kubeadm backed config.yaml up.
func snapAt(v, sha string, backup bool) kubeadm.Snapshot {
	s := kubeadm.Snapshot{Taken: time.Now(), ConfigExists: true, ConfigSHA256: sha, Manifests: map[string]string{
		"kube-apiserver": v, "kube-controller-manager": v, "kube-scheduler": v}}
	if backup {
		s.BackupDirs = []string{"/etc/kubernetes/tmp/kubeadm-backup-manifests-x"}
		s.KubeletConfigBackups = []kubeadm.KubeletBackup{{Path: "/etc/kubernetes/tmp/kubeadm-kubelet-config-x", HasConfig: true}}
	}
	return s
}

type hostConn struct {
	*runnertest.FakeConn
	host string
	c    *cluster
}

func (c *cluster) Conn(ctx context.Context, h *inventory.Host) (runner.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.down[h.Name]; err != nil {
		return nil, err
	}
	return hostConn{&runnertest.FakeConn{Results: c.results}, h.Name, c}, nil
}

// Run answers complete's verification from the cluster as it is now; the rest as FakeConn does.
func (hc hostConn) Run(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	hc.c.mu.Lock()
	answer := hc.c.answer
	hc.c.mu.Unlock()
	if answer != nil {
		if out, ok := answer(hc.host, cmd); ok {
			_, err := io.WriteString(stdout, out)
			return 0, err
		}
	}
	// health.CompleteScript, or health.NodesScript (which ends with its kubectl), not the health checks
	nodesOnly := strings.HasSuffix(strings.TrimRight(cmd, "'\n"), "get nodes -o json")
	if !strings.Contains(cmd, "get --raw /readyz\n") && !nodesOnly {
		return hc.FakeConn.Run(ctx, cmd, stdin, stdout, stderr)
	}
	hc.c.mu.Lock()
	says, hook := hc.c.apiSays(), hc.c.onNodes
	if nodesOnly {
		hc.c.onNodes = nil
	}
	hc.c.mu.Unlock()
	if hook != nil && nodesOnly {
		hook() // after the answer, before the caller reads it
	}
	_, err := io.WriteString(stdout, says)
	return 0, err
}

// apiSays is what the API server answers complete's verification (health.CompleteScript):
// every host a Ready node with its kubelet's version (or the stale one), every controller's
// control-plane pods at its manifests' tags. Called with c.mu held.
func (c *cluster) apiSays() string {
	const mark = "### kupgrade-health "
	var nodes, pods []string
	defer func() {
		if c.staleAnswers--; c.staleAnswers == 0 {
			c.stale = nil
		}
	}()
	for _, h := range c.nodes {
		v := cmp.Or(c.stale[h], c.kubelet[h])
		mark := ""
		if cv := c.cordoned[h]; cv != "" {
			mark = fmt.Sprintf(`%q:%q`, health.CordonMark, cv)
		}
		labels := "" // a controller carries kubeadm's role label
		if len(c.snaps[h].Manifests) > 0 {
			labels = `"node-role.kubernetes.io/control-plane":""`
		}
		nodes = append(nodes, fmt.Sprintf(`{"metadata":{"name":%q,"labels":{%s},"annotations":{%s}},"spec":{"unschedulable":%t},"status":{"conditions":[{"type":"Ready","status":"True"}],"nodeInfo":{"kubeletVersion":%q}}}`, h, labels, mark, mark != "", v))
		for comp, tag := range c.snaps[h].Manifests {
			pods = append(pods, fmt.Sprintf(`{"metadata":{"name":"%s-%s","namespace":"kube-system","labels":{"component":%q}},"spec":{"nodeName":%q,"containers":[{"image":"registry.k8s.io/%s:%s"}]},"status":{"phase":"Running"}}`, comp, h, comp, h, comp, tag))
		}
	}
	return mark + "readyz rc=0\nok\n" + mark + "nodes rc=0\n{\"items\":[" + strings.Join(nodes, ",") + "]}\n" +
		mark + "pods rc=0\n{\"items\":[" + strings.Join(pods, ",") + "]}\n"
}

func (c *cluster) probe(ctx context.Context, conn runner.Conn) (kubeadm.Snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	host := conn.(hostConn).host
	s := c.snaps[host]
	said := "Kubernetes " + c.kubelet[host] // what `kubelet --version` prints
	kv, _ := kubeadm.KubeletVersion(said)
	s.Installed = kubeadm.Installed{Kubelet: kv, Kubeadm: c.kubeadm[host], KubeletSaid: said, Read: true}
	return s, nil
}

func (c *cluster) Play(ctx context.Context, pb *playbooks.Playbook, inv *inventory.Inventory, po runner.PlayOptions) (*runner.Recap, error) {
	name := strings.TrimSuffix(filepath.Base(pb.File), ".yml")
	if len(po.Tags) > 0 { // a phase of the kubelet step: "kubelet:drain"
		name += ":" + strings.Join(po.Tags, ",")
	}
	c.mu.Lock()
	limit := strings.Join(po.Hosts, ":")
	c.plays = append(c.plays, name+"@"+limit)
	c.vars = append(c.vars, po.ExtraVars)
	c.gate, c.fence = po.Gate, po.Fence
	onPlay := c.onPlay
	c.mu.Unlock()
	if onPlay != nil {
		if recap, err, handled := onPlay(ctx, name, limit); handled {
			return recap, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	to := po.ExtraVars["to_version"].(string)
	for _, h := range po.Hosts {
		switch name {
		case "control-plane":
			c.snaps[h], c.kubeadm[h] = snapAt(to, "sha-new", true), to
		case "kubelet", "kubelet:kubelet":
			c.kubelet[h] = to
		case "kubelet:drain":
			c.cordoned[h] = to
		case "kubelet:uncordon":
			delete(c.cordoned, h)
		case "abort": // the restore puts back what the upgrade found, keeping kubeadm's folders
			s := snapAt(po.ExtraVars["from_version"].(string), "sha-old", false)
			r, _ := po.ExtraVars["abort_restore"].(map[string]any)[h].(map[string]any)
			tags, _ := r["tags"].(string)
			for _, line := range strings.Split(tags, "\n") {
				if c, tag, ok := strings.Cut(line, " "); ok {
					s.Manifests[c] = tag // what the restore puts back (etcd.yaml included)
				}
			}
			s.BackupDirs, s.KubeletConfigBackups = c.snaps[h].BackupDirs, c.snaps[h].KubeletConfigBackups
			c.snaps[h] = s
			if r["kubeadm"] == true { // kubeadm goes back with the from version
				c.kubeadm[h] = po.ExtraVars["from_version"].(string)
			}
		}
	}
	return &runner.Recap{Hosts: map[string]*runner.HostRecap{}}, nil
}

func (c *cluster) played() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.plays...)
}

// failed is the recap of a kubeadm task that exited rc on host.
func failed(host string, rc int, stderr string) *runner.Recap {
	return &runner.Recap{
		Hosts: map[string]*runner.HostRecap{host: {Failed: 1}},
		Failures: []*runner.HostError{{Host: host, Task: "kubeadm upgrade",
			Result: map[string]any{"rc": rc, "stderr": stderr, "stdout": ""}}},
	}
}

type fixture struct {
	dbPath string
	st     *sqlite.Store
	c      *cluster
	w      *upgrade.Workflow
	inv    *inventory.Inventory
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, twoPlusOne)
}

// newFixtureWith is newFixture on the inventory text inv, its store opened with opts.
func newFixtureWith(t *testing.T, inv string, opts ...state.Option) *fixture {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "inventory.yml")
	if err := os.WriteFile(path, []byte(inv), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := inventory.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(t.Context(), filepath.Join(dir, "kupgrade.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := newCluster("v1.29.4")
	for _, h := range loaded.Nodes() {
		c.nodes = append(c.nodes, h.Name)
	}
	w := &upgrade.Workflow{Store: st, Runner: c, Inventory: loaded, Cluster: "default",
		LeaseTTL: 2 * time.Second, Probe: c.probe, VerifyTimeout: 300 * time.Millisecond}
	return &fixture{st: st, c: c, w: w, inv: loaded, dbPath: filepath.Join(dir, "kupgrade.db")}
}

// inBubble runs test on a new fixture inside a synctest bubble: the lease's renewals, the gate,
// the verification's polls and the database retries' back-off wait on the bubble's fake clock,
// which moves as soon as every goroutine of the test waits. The store counts time on that clock
// too (WithClock), as the SQLite driver reads the real one.
func inBubble(t *testing.T, test func(t *testing.T, f *fixture)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		test(t, newFixtureWith(t, twoPlusOne, state.WithClock(time.Now)))
	})
}

// at walks the fixture's upgrade to state s through the workflow itself.
func (f *fixture) at(t *testing.T, s state.State) {
	t.Helper()
	if _, err := f.w.Start(t.Context(), "v1.30.1", "", false); err != nil {
		t.Fatal(err)
	}
	if err := f.w.Run(t.Context(), upgrade.RunOptions{Until: s}); err != nil {
		t.Fatal(err)
	}
	f.wantState(t, s)
}

func (f *fixture) wantState(t *testing.T, want state.State) state.Upgrade {
	t.Helper()
	u, err := f.st.Upgrade(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	if u.State != want {
		t.Fatalf("state is %s, want %s", u.State, want)
	}
	return u
}

func (f *fixture) host(t *testing.T, name string) state.Host {
	t.Helper()
	hosts, err := f.st.Hosts(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if h.Hostname == name {
			return h
		}
	}
	t.Fatalf("no host %s", name)
	return state.Host{}
}

func (f *fixture) lastEvent(t *testing.T) state.Event {
	t.Helper()
	evs, err := f.st.Events(context.Background(), "default", 1)
	if err != nil || len(evs) == 0 {
		t.Fatalf("no event (%v)", err)
	}
	return evs[0]
}

// generation reads the cluster's lease generation straight from the database.
func (f *fixture) generation(t *testing.T) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", f.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var gen int64
	if err := db.QueryRowContext(t.Context(), "SELECT lease_generation FROM kube_upgrade WHERE cluster = 'default'").Scan(&gen); err != nil {
		t.Fatal(err)
	}
	return gen
}

// controlPlane is the action of `host upgrade HOST control-plane`: the state decides which
// control-plane step runs.
func controlPlane(host string) upgrade.Action {
	return upgrade.Action{Step: state.StepFirstMaster, Hosts: []string{host}}
}

// kubeletPhases are the plays of the kubelet step on each of hosts, one batch after the other:
// its drain, its kubelet and its uncordon.
func kubeletPhases(hosts ...string) []string {
	var out []string
	for _, h := range hosts {
		for _, tag := range []string{playbooks.TagDrain, playbooks.TagKubelet, playbooks.TagUncordon} {
			out = append(out, "kubelet:"+tag+"@"+h)
		}
	}
	return out
}
