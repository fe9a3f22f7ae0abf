package health

import (
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// EtcdConfig is where the cluster's etcd is, from kubeadm's ClusterConfiguration: stacked (a
// static pod on each controller) or external, with its endpoints and client certificate.
type EtcdConfig struct {
	External  bool
	Endpoints []string
	CAFile    string
	CertFile  string
	KeyFile   string
}

// ParseEtcdConfig reads the etcd part of kubeadm's ClusterConfiguration (the kubeadm-config
// ConfigMap's ClusterConfiguration).
func ParseEtcdConfig(clusterConfiguration string) (EtcdConfig, error) {
	var cc struct {
		Etcd struct {
			External *struct {
				Endpoints []string `yaml:"endpoints"`
				CAFile    string   `yaml:"caFile"`
				CertFile  string   `yaml:"certFile"`
				KeyFile   string   `yaml:"keyFile"`
			} `yaml:"external"`
		} `yaml:"etcd"`
	}
	if err := yaml.Unmarshal([]byte(clusterConfiguration), &cc); err != nil {
		return EtcdConfig{}, fmt.Errorf("read kubeadm's ClusterConfiguration: %w", err)
	}
	e := cc.Etcd.External
	if e == nil {
		return EtcdConfig{}, nil
	}
	return EtcdConfig{External: true, Endpoints: e.Endpoints, CAFile: e.CAFile, CertFile: e.CertFile, KeyFile: e.KeyFile}, nil
}

// etcdView is what EtcdScript's output says, or readyz when no etcdctl could be run.
type etcdView struct {
	members []string // names (or peer URLs of members not started)
	sick    []string // "endpoint (error)"
	readyz  string   // the API server's /readyz/etcd answer, when etcdctl was missing
}

// parseEtcd reads EtcdScript's sections; missing is true when no etcdctl could be run.
func parseEtcd(secs map[string]section) (v etcdView, missing bool, err error) {
	if s, ok := secs["etcdctl"]; ok && s.rc != 0 {
		return v, true, nil
	}
	m, h := secs["members"], secs["health"]
	if m.rc != 0 {
		return v, false, fmt.Errorf("etcdctl member list: exit status %d: %s", m.rc, firstLine(m.body))
	}
	var list struct {
		Members []struct {
			Name     string   `json:"name"`
			PeerURLs []string `json:"peerURLs"`
		} `json:"members"`
	}
	if err := json.Unmarshal([]byte(m.body), &list); err != nil {
		return v, false, fmt.Errorf("decode etcdctl member list: %w", err)
	}
	for _, mb := range list.Members {
		name := mb.Name
		if name == "" {
			name = "unstarted " + strings.Join(mb.PeerURLs, ",")
		}
		v.members = append(v.members, name)
	}
	var health []struct {
		Endpoint string `json:"endpoint"`
		Health   bool   `json:"health"`
		Error    string `json:"error"`
	}
	// etcdctl exits non-zero when an endpoint is unhealthy, and still prints the list.
	if err := json.Unmarshal([]byte(jsonPart(h.body, "[")), &health); err != nil {
		return v, false, fmt.Errorf("etcdctl endpoint health: exit status %d: %s", h.rc, firstLine(h.body))
	}
	for _, e := range health {
		if !e.Health {
			v.sick = append(v.sick, fmt.Sprintf("%s (%s)", e.Endpoint, e.Error))
		}
	}
	return v, false, nil
}

// jsonPart is the first line of body that starts a JSON array or object (open: "[" or "{"):
// etcdctl and etcdutl may print warnings first.
func jsonPart(body, open string) string {
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), open) {
			return line
		}
	}
	return body
}

// etcd judges the members: each healthy, as many as expected. Without etcdctl it can only warn
// with the API server's view.
func etcd(secs map[string]section, readyz section, want int) Result {
	v, missing, err := parseEtcd(secs)
	switch {
	case missing && readyz.rc == 0 && strings.TrimSpace(readyz.body) == "ok":
		return Result{Check: CheckEtcd, Status: Warn, Message: "no etcdctl on the controller: the API server reaches etcd (/readyz/etcd ok), members not counted"}
	case missing:
		return Result{Check: CheckEtcd, Status: Fail, Message: "no etcdctl on the controller, and the API server's /readyz/etcd says: " + firstLine(readyz.body)}
	case err != nil:
		return Result{Check: CheckEtcd, Status: Fail, Message: err.Error()}
	case len(v.sick) > 0:
		return Result{Check: CheckEtcd, Status: Fail, Message: fmt.Sprintf("%d etcd members unhealthy", len(v.sick)), Objects: v.sick}
	case want > 0 && len(v.members) != want:
		return Result{Check: CheckEtcd, Status: Fail, Message: fmt.Sprintf("%d etcd members, want %d", len(v.members), want), Objects: v.members}
	}
	return pass(CheckEtcd, fmt.Sprintf("%d etcd members healthy: %s", len(v.members), strings.Join(v.members, ", ")))
}
