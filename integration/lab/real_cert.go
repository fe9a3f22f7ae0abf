package lab

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"math/big"
	"path"
	"time"
)

// ShortenCert re-signs the kubeadm-managed certificate file (under /etc/kubernetes/pki) on the
// node with its CA (ca.crt and ca.key beside it) so that it ends at notAfter: the same key,
// subject, usages and names, a new serial number. Whatever uses the certificate keeps working
// with it until then; it is what an operator meets when `kubeadm certs renew` was forgotten.
// The CA's key is used on this machine; nothing is installed on the node.
func (n *Node) ShortenCert(ctx context.Context, file string, notAfter time.Time) error {
	dir := path.Dir(file)
	var blocks [3]*pem.Block
	for i, f := range []string{file, dir + "/ca.crt", dir + "/ca.key"} {
		text, err := n.Exec(ctx, "cat", f)
		if err != nil {
			return fmt.Errorf("read %s on %s: %w", f, n.Name, err)
		}
		if blocks[i], _ = pem.Decode([]byte(text)); blocks[i] == nil {
			return fmt.Errorf("%s on %s: no PEM block", f, n.Name)
		}
	}
	cert, err := x509.ParseCertificate(blocks[0].Bytes)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", file, n.Name, err)
	}
	ca, err := x509.ParseCertificate(blocks[1].Bytes)
	if err != nil {
		return fmt.Errorf("%s/ca.crt on %s: %w", dir, n.Name, err)
	}
	caKey, err := parsePrivateKey(blocks[2].Bytes)
	if err != nil {
		return fmt.Errorf("%s/ca.key on %s: %w", dir, n.Name, err)
	}
	der, err := x509.CreateCertificate(rand.Reader, resigned(cert, notAfter), ca, cert.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("re-sign %s: %w", file, err)
	}
	out := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if _, err := execIn(ctx, n.lab.pool.Client, n.container(), bytes.NewReader(out), "sh", "-c", `cat > "$0"`, file); err != nil {
		return fmt.Errorf("write %s on %s: %w", file, n.Name, err)
	}
	return nil
}

// resigned is cert's template (its subject byte for byte) with a new serial number and end.
func resigned(cert *x509.Certificate, notAfter time.Time) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return &x509.Certificate{
		SerialNumber: serial, RawSubject: cert.RawSubject,
		NotBefore: cert.NotBefore, NotAfter: notAfter,
		KeyUsage: cert.KeyUsage, ExtKeyUsage: cert.ExtKeyUsage, BasicConstraintsValid: cert.BasicConstraintsValid,
		DNSNames: cert.DNSNames, IPAddresses: cert.IPAddresses,
	}
}

// parsePrivateKey reads a key as kubeadm writes it: PKCS #1 RSA, SEC 1 EC or PKCS #8.
func parsePrivateKey(der []byte) (crypto.Signer, error) {
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("not a PKCS #1, SEC 1 or PKCS #8 private key: %w", err)
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("a %T cannot sign", k)
	}
	return s, nil
}
