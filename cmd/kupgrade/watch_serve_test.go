package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func watchGlobals(t *testing.T) *Globals {
	return &Globals{DB: "sqlite:" + emptyDB(t), Inventory: []string{filepath.Join(t.TempDir(), "none.yml")},
		Output: "table", LogLevel: "info", LogFormat: "text"}
}

// fetch is GET url with the Authorization header auth ("" for none): the status and the body.
func fetch(t *testing.T, c *http.Client, url, auth string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A bare port (":0", "0") binds the loopback interface only, never every interface.
func TestWatchBarePortListensOnLoopbackOnly(t *testing.T) {
	for _, port := range []string{":0", "0"} {
		w := startWatchWith(t, watchGlobals(t), serveFlags{Listen: port})
		addr := w.addr(t, "the status page")
		host, _, err := net.SplitHostPort(addr)
		if err != nil || host != "127.0.0.1" {
			t.Errorf("--listen %s serves on %s, want 127.0.0.1 only", port, addr)
		}
		w.cancel()
		<-w.done
	}
	for in, want := range map[string]string{"9477": "127.0.0.1:9477", ":9477": "127.0.0.1:9477",
		"0.0.0.0:9477": "0.0.0.0:9477", "[::1]:9477": "[::1]:9477", "localhost:9477": "localhost:9477"} {
		if got := listenAddr(in); got != want {
			t.Errorf("listenAddr(%q) = %q, want %q", in, got, want)
		}
	}
}

// With --token-file, the status page, /status.json and /metrics answer 401 without the bearer
// token or with a wrong one; /healthz stays open.
func TestWatchTokenGuardsTheStatusPage(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := startWatchWith(t, watchGlobals(t), serveFlags{Listen: "127.0.0.1:0", TokenFile: tokenFile})
	base := "http://" + w.addr(t, "the status page")
	c := http.DefaultClient
	for _, path := range []string{"/", "/status.json", "/metrics"} {
		for _, auth := range []string{"", "Bearer wrong", "Basic czNjcmV0LXRva2Vu", "Bearer s3cret", "s3cret-token"} {
			if code, body := fetch(t, c, base+path, auth); code != http.StatusUnauthorized || strings.Contains(body, "kupgrade_build_info") {
				t.Errorf("GET %s with %q: %d, want 401:\n%s", path, auth, code, body)
			}
		}
		if code, _ := fetch(t, c, base+path, "Bearer s3cret-token"); code != http.StatusOK {
			t.Errorf("GET %s with the token: %d, want 200", path, code)
		}
	}
	if code, body := fetch(t, c, base+"/healthz", ""); code != http.StatusOK || body != "ok\n" {
		t.Errorf("GET /healthz without the token: %d %q, want 200 ok", code, body)
	}
}

// --metrics-listen serves /metrics on its own address, without the page's token; the page's
// address then serves no /metrics, and the metrics address no page.
func TestWatchMetricsServedApart(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("tok"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := startWatchWith(t, watchGlobals(t), serveFlags{Listen: "127.0.0.1:0", MetricsListen: "127.0.0.1:0", TokenFile: tokenFile})
	page, metrics := "http://"+w.addr(t, "the status page"), "http://"+w.addr(t, "/metrics")
	c := http.DefaultClient
	if code, body := fetch(t, c, metrics+"/metrics", ""); code != http.StatusOK || !strings.Contains(body, "kupgrade_build_info") {
		t.Errorf("GET /metrics on --metrics-listen: %d:\n%s", code, body)
	}
	if code, body := fetch(t, c, metrics+"/", ""); code != http.StatusNotFound || strings.Contains(body, "kupgrade watch") {
		t.Errorf("GET / on --metrics-listen: %d, want 404 (no status page there):\n%s", code, body)
	}
	if code, body := fetch(t, c, page+"/metrics", "Bearer tok"); strings.Contains(body, "kupgrade_build_info") {
		t.Errorf("GET /metrics on --listen: %d, want no metrics there:\n%s", code, body)
	}
	if code, _ := fetch(t, c, page+"/", "Bearer tok"); code != http.StatusOK {
		t.Errorf("GET / on --listen with the token: %d", code)
	}
}

// With --tls-cert and --tls-key the status page is served over HTTPS (a client trusting the
// certificate reads it), and a plain HTTP request gets no page.
func TestWatchServesHTTPS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	w := startWatchWith(t, watchGlobals(t), serveFlags{Listen: "127.0.0.1:0", TLSCert: certFile, TLSKey: keyFile})
	addr := w.addr(t, "the status page")
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if code, body := fetch(t, c, "https://"+addr+"/", ""); code != http.StatusOK || !strings.Contains(body, "<h1>kupgrade watch</h1>") {
		t.Errorf("GET https://%s/: %d:\n%s", addr, code, body)
	}
	if code, body := fetch(t, http.DefaultClient, "http://"+addr+"/", ""); code == http.StatusOK || strings.Contains(body, "kupgrade watch") {
		t.Errorf("plain HTTP got the page: %d:\n%s", code, body)
	}
}

// Bad serve flags are bad input (exit 2) naming the flag.
func TestWatchServeFlagsRefused(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []serveFlags{
		{Listen: "127.0.0.1:0", TokenFile: empty},
		{Listen: "127.0.0.1:0", TokenFile: filepath.Join(t.TempDir(), "missing")},
		{Listen: "127.0.0.1:0", TLSCert: empty},
		{Listen: "127.0.0.1:0", TLSCert: empty, TLSKey: empty},
	} {
		w := startWatchWith(t, watchGlobals(t), f)
		err := <-w.done
		if exitCode(err) != exitBadInput || !strings.Contains(err.Error(), "--t") {
			t.Errorf("%+v: %v (exit %d), want exit 2 naming the flag", f, err, exitCode(err))
		}
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns a pool trusting it.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kupgrade watch test"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
