//go:build integration

package lab

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"testing"
	"time"
)

// A certificate re-signed by ShortenCert's template still chains to the CA for its usage, with
// the same subject and key, and ends when asked; the CA's key is read as kubeadm writes it.
func TestResigned(t *testing.T) {
	caKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	leafKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	start := time.Now().Add(-time.Hour).Truncate(time.Second)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubernetes"},
		NotBefore: start, NotAfter: start.Add(24 * 365 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2),
		Subject:   pkix.Name{CommonName: "kube-apiserver-kubelet-client", Organization: []string{"kubeadm:cluster-admins"}},
		NotBefore: start, NotAfter: start.Add(24 * 365 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, BasicConstraintsValid: true}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(leafDER)
	signer, err := parsePrivateKey(x509.MarshalPKCS1PrivateKey(caKey))
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now().Add(5 * 24 * time.Hour).Truncate(time.Second)
	der, err := x509.CreateCertificate(rand.Reader, resigned(leaf, end), ca, leaf.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := x509.ParseCertificate(der)
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := got.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the re-signed certificate does not verify as a client certificate: %v", err)
	}
	if !got.NotAfter.Equal(end) || !bytes.Equal(got.RawSubject, leaf.RawSubject) || !leafKey.PublicKey.Equal(got.PublicKey) || got.SerialNumber.Cmp(leaf.SerialNumber) == 0 {
		t.Errorf("re-signed: ends %s (want %s), subject %s (want %s), same key %v, serial %s (was %s)",
			got.NotAfter, end, got.Subject, leaf.Subject, leafKey.PublicKey.Equal(got.PublicKey), got.SerialNumber, leaf.SerialNumber)
	}
}
