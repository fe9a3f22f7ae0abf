package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/ssh"
)

// Open finds the running lab whose files Up wrote into dir, so a later process (the
// kupgrade-lab command) can inject faults into its nodes or run commands on them.
func Open(ctx context.Context, dir string) (*Lab, error) {
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if err != nil {
		return nil, fmt.Errorf("open lab in %s (run kupgrade-lab up first): %w", dir, err)
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil || st.Name == "" {
		return nil, fmt.Errorf("open lab: %s is not a lab state file", filepath.Join(dir, StateFile))
	}
	pool, err := newPool()
	if err != nil {
		return nil, err
	}
	l := &Lab{Name: st.Name, Dir: dir, pool: pool}
	if l.keys, err = loadClientKey(filepath.Join(dir, KeyFile)); err != nil {
		return nil, err
	}
	if net, err := pool.Client.NetworkInfo(st.Name); err == nil {
		l.netID = net.ID
	}
	for _, sn := range st.Nodes {
		res, ok := pool.ContainerByName(st.Name + "-" + sn.Name)
		if !ok {
			return nil, fmt.Errorf("open lab %s: node %s is gone", st.Name, sn.Name)
		}
		role := "worker"
		if strings.HasPrefix(sn.Name, "controller-") {
			role = "controller"
		}
		n := &Node{Name: sn.Name, Role: role, Port: sn.Port, PackageManager: sn.PackageManager, lab: l, res: res}
		if out, err := n.Exec(ctx, "cat", "/etc/ssh/ssh_host_ed25519_key.pub"); err == nil {
			n.HostKey, _, _, _, _ = ssh.ParseAuthorizedKey([]byte(out))
		}
		l.nodes = append(l.nodes, n)
	}
	return l, nil
}

func loadClientKey(path string) (*clientKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read lab key: %w", err)
	}
	signer, err := ssh.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("parse lab key %s: %w", path, err)
	}
	authorized := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	return &clientKey{path: path, signer: signer, authorized: authorized}, nil
}
