package upgrade

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// etcdMember is one etcd member as abort's restore sees it before changing anything.
type etcdMember struct {
	host                    *inventory.Host
	stacked                 bool   // a static pod on a controller (else a systemd unit)
	config                  string // where its flags were read
	name, peerURL, dataDir  string
	initialCluster, tokenIs string // initialCluster is every member's name=peer URL
	image                   string // a stacked member's etcd image
	tools                   []string
	ctrImages               []string
	unit                    bool     // an external member with an etcd.service
	aside                   []string // manifests a stopped restore left aside
	mark                    string   // what this restore writes in the data dir: "UUID SHA256"
	restored                bool     // the data dir carries mark
}

// token is the cluster token of the restored cluster: the member's, else etcd's default.
func (m etcdMember) token() string {
	if m.tokenIs != "" {
		return m.tokenIs
	}
	return "etcd-cluster"
}

// restoreCommand is the command that runs `snapshot restore` on m: the host's etcdutl, else
// its etcdctl (etcd before 3.5), else the etcd image's through containerd's ctr.
func (m etcdMember) restoreCommand(uuid string) string {
	switch {
	case slices.Contains(m.tools, "etcdutl"):
		return "etcdutl"
	case slices.Contains(m.tools, "etcdctl"):
		return "ETCDCTL_API=3 etcdctl"
	}
	bin, env := "etcdutl", ""
	if minor, ok := minorOf(m.image[strings.LastIndex(m.image, ":")+1:]); ok && minor[0] == 3 && minor[1] < 5 {
		bin, env = "etcdctl", " --env ETCDCTL_API=3"
	}
	parent := path.Dir(m.dataDir)
	return fmt.Sprintf("ctr -n k8s.io run --rm --mount type=bind,src=%s,dst=%s,options=rbind:rw --mount type=bind,src=/var/lib/kupgrade,dst=/var/lib/kupgrade,options=rbind:ro%s %s kupgrade-etcd-restore-%.8s %s",
		sq(parent), sq(parent), env, sq(m.image), uuid, bin)
}

// missing names what m lacks for kupgrade to restore it ("" when nothing).
func (m etcdMember) missing() string {
	var miss []string
	if m.config == "" {
		if m.stacked {
			miss = append(miss, "no "+manifestsDir+"/etcd.yaml")
		} else {
			miss = append(miss, "no etcd environment file (/etc/etcd.env, /etc/default/etcd or /etc/etcd/etcd.conf)")
		}
	}
	for flag, v := range map[string]string{"--name": m.name, "--initial-advertise-peer-urls": m.peerURL, "--data-dir": m.dataDir} {
		if m.config != "" && v == "" {
			miss = append(miss, flag+" is not set in "+m.config)
		}
	}
	if !m.stacked && !m.unit {
		miss = append(miss, "no etcd.service to stop and start")
	}
	hostTool := slices.Contains(m.tools, "etcdutl") || slices.Contains(m.tools, "etcdctl")
	if !hostTool && !(m.stacked && slices.Contains(m.tools, "ctr") && slices.Contains(m.ctrImages, m.image)) {
		miss = append(miss, "no etcdutl or etcdctl on the host (nor, for a static pod, ctr with its etcd image)")
	}
	slices.Sort(miss)
	return strings.Join(miss, "; ")
}

// etcdMembers are the hosts abort restores etcd on: the controllers for a stacked etcd, the
// inventory's etcd group for an external one.
func (w *Workflow) etcdMembers(snap state.EtcdSnapshot, cs []*inventory.Host) ([]*inventory.Host, error) {
	if !snap.External {
		return cs, nil
	}
	if !slices.Contains(w.Inventory.GroupNames(), "etcd") {
		return nil, fmt.Errorf("etcd is external and inventory %s has no etcd group naming its members", w.Inventory.Path)
	}
	hs, err := w.Inventory.Select("etcd")
	if err == nil && len(hs) == 0 {
		err = fmt.Errorf("the etcd group of inventory %s has no host", w.Inventory.Path)
	}
	return hs, err
}

// discoverMember reads m's facts on h, changing nothing.
func (w *Workflow) discoverMember(ctx context.Context, u state.Upgrade, snap state.EtcdSnapshot, h *inventory.Host) (etcdMember, error) {
	m := etcdMember{host: h, stacked: !snap.External, mark: u.UUID + " " + snap.SHA256}
	c, err := w.Runner.Conn(ctx, h)
	if err != nil {
		return m, fmt.Errorf("cannot reach %s: %w", h.Name, err)
	}
	out, err := runScript(ctx, c, discoverScript(u.UUID, m.stacked))
	if err != nil {
		return m, fmt.Errorf("read etcd's configuration on %s: %w", h.Name, err)
	}
	m.read(out)
	if m.dataDir != "" {
		out, err := runScript(ctx, c, markScript(m.dataDir))
		if err != nil {
			return m, fmt.Errorf("read the restore mark on %s: %w", h.Name, err)
		}
		m.read(out)
	}
	return m, nil
}

// read takes the discovery's lines into m.
func (m *etcdMember) read(out string) {
	for line := range strings.Lines(out) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), restoreMark)
		if !ok {
			continue
		}
		kind, v, _ := strings.Cut(rest, " ")
		switch kind {
		case "config":
			m.config = v
		case "image":
			m.image = v
		case "tool":
			m.tools = append(m.tools, v)
		case "ctr-image":
			m.ctrImages = append(m.ctrImages, v)
		case "unit":
			m.unit = true
		case "aside":
			m.aside = append(m.aside, strings.Fields(v)[0])
		case "mark":
			m.restored = m.restored || v != "" && v == m.mark
		case "flag":
			m.flag(v)
		}
	}
}

func (m *etcdMember) flag(kv string) {
	k, v, _ := strings.Cut(kv, "=")
	switch k {
	case "name":
		m.name = v
	case "initial-advertise-peer-urls":
		m.peerURL, _, _ = strings.Cut(v, ",")
	case "data-dir":
		m.dataDir = v
	case "initial-cluster-token":
		m.tokenIs = v
	}
}

// runScript runs script as root over c and returns its output; a non-zero exit is an error
// naming what the script printed.
func runScript(ctx context.Context, c runner.Conn, script string) (string, error) {
	rc, out, stderr, err := runner.ExecOn(c, true)(ctx, script, nil)
	if err == nil && rc != 0 {
		err = fmt.Errorf("exit status %d: %s", rc, strings.TrimSpace(stderr))
	}
	return out, err
}
