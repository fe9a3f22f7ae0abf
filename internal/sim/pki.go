package sim

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"sync"
	"time"
)

// The files a controller holds for the health checks (health.ClusterScript, HostScript), as
// kubeadm init leaves them: admin.conf, the kubeconfig kubectl reads as root, with its client
// certificate embedded, and the certificates under /etc/kubernetes/pki.
const (
	adminConf = "/etc/kubernetes/admin.conf"
	pkiDir    = "/etc/kubernetes/pki"
)

// pkiFiles are the certificate files a simulated controller holds, as kubeadm names them.
var pkiFiles = []string{"ca.crt", "apiserver.crt", "apiserver-kubelet-client.crt", "front-proxy-ca.crt",
	"etcd/ca.crt", "etcd/server.crt", "etcd/healthcheck-client.crt"}

var (
	certOnce sync.Once
	certPEM  []byte
)

// simCert is one self-signed certificate, valid for a year from the first call, in PEM: every
// simulated certificate is this one (the checks read only its end).
func simCert() []byte {
	certOnce.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(fmt.Sprintf("sim: %v", err))
		}
		now := time.Now()
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kupgrade-sim"},
			NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			panic(fmt.Sprintf("sim: %v", err))
		}
		certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	})
	return certPEM
}

// layPKI writes a controller's admin.conf and certificates; h.mu is held (or h is not shared).
func (h *Host) layPKI(now time.Time) {
	h.disk.mkdirAll(pkiDir+"/etcd", now)
	for _, f := range pkiFiles {
		h.disk.write(pkiDir+"/"+f, simCert(), now)
	}
	conf := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: %[1]s
    server: https://%[2]s:6443
  name: kubernetes
users:
- name: kubernetes-admin
  user:
    client-certificate-data: %[1]s
contexts:
- context: {cluster: kubernetes, user: kubernetes-admin}
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
`, base64.StdEncoding.EncodeToString(simCert()), h.Name)
	h.disk.write(adminConf, []byte(conf), now)
}

// RemoveFile removes file p from h's disk, as an operator's rm would (a test takes admin.conf
// away, say).
func (h *Host) RemoveFile(p string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.disk.removeAll(p)
}
