package main

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/watch"
)

// serveFlags are the flags of watch's HTTP servers: the status page, and /metrics apart. Each
// has a variable too, so that the packaged systemd unit reads them from its environment file.
type serveFlags struct {
	Listen        string `placeholder:"ADDR" env:"KUPGRADE_WATCH_LISTEN" help:"Serve the status page, /status.json, /healthz (and /metrics, unless --metrics-listen) on ADDR; a bare port (9477 or :9477) binds 127.0.0.1 only: write 0.0.0.0:9477 for every interface."`
	MetricsListen string `name:"metrics-listen" env:"KUPGRADE_WATCH_METRICS_LISTEN" placeholder:"ADDR" help:"Serve /metrics and /healthz on ADDR on their own (plain HTTP, no token: they hold no command output); a bare port binds 127.0.0.1."`
	TokenFile     string `name:"token-file" env:"KUPGRADE_WATCH_TOKEN_FILE" type:"path" help:"Require 'Authorization: Bearer TOKEN', TOKEN being this file's content, for everything --listen serves but /healthz."`
	TLSCert       string `name:"tls-cert" env:"KUPGRADE_WATCH_TLS_CERT" type:"path" help:"Serve --listen over HTTPS with this certificate (PEM; with --tls-key)."`
	TLSKey        string `name:"tls-key" env:"KUPGRADE_WATCH_TLS_KEY" type:"path" help:"The private key (PEM) of --tls-cert."`
}

// listenAddr is where ADDR binds: a bare port binds the loopback interface, never every one.
func listenAddr(addr string) string {
	if !strings.Contains(addr, ":") {
		return "127.0.0.1:" + addr
	}
	if strings.HasPrefix(addr, ":") {
		return "127.0.0.1" + addr
	}
	return addr
}

// served is one running server.
type served struct {
	srv  *http.Server
	addr string
	done chan error
}

// serve starts the servers the flags ask for; stop shuts them down and reports a failure to serve.
func (f *serveFlags) serve(a *app, w *watch.Watcher) (stop func() error, err error) {
	page, err := f.pageHandler(w)
	if err != nil {
		return nil, err
	}
	tlsConfig, err := f.tlsConfig()
	if err != nil {
		return nil, err
	}
	var all []*served
	stop = func() error { return stopAll(a, all) }
	for _, s := range []struct {
		addr, what string
		h          http.Handler
		tls        *tls.Config
	}{
		{f.Listen, "the status page", page, tlsConfig},
		{f.MetricsListen, "/metrics", metricsMux(w), nil},
	} {
		if s.addr == "" {
			continue
		}
		sv, err := start(s.addr, s.h, s.tls, a.log)
		if err != nil {
			stop() //nolint:errcheck // the listen error is the one to report
			return nil, err
		}
		all = append(all, sv)
		a.log.Info("serving "+s.what, "addr", sv.addr, "https", s.tls != nil)
		f.warnOpen(a, s.what, sv.addr, s.tls)
	}
	return stop, nil
}

// warnOpen warns when the status page answers beyond this machine without a token or TLS.
func (f *serveFlags) warnOpen(a *app, what, addr string, tlsConfig *tls.Config) {
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || ip.IsLoopback() || what != "the status page" {
		return
	}
	if f.TokenFile == "" || tlsConfig == nil {
		a.log.Warn("the status page, which shows command output, answers on every interface without "+
			"--token-file and --tls-cert: anyone who reaches this port reads it", "addr", addr)
	}
}

// start listens on addr and serves h there (over TLS with tlsConfig); the server's own complaints
// (a client's failed TLS handshake) go to the debug log.
func start(addr string, h http.Handler, tlsConfig *tls.Config, log *slog.Logger) (*served, error) {
	ln, err := net.Listen("tcp", listenAddr(addr))
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %v: %w", addr, err, state.ErrBadInput)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	sv := &served{srv: srv, addr: ln.Addr().String(), done: make(chan error, 1)}
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
	}
	go func() { sv.done <- sv.srv.Serve(ln) }()
	return sv, nil
}

func stopAll(a *app, all []*served) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	for _, sv := range all {
		if err := sv.srv.Shutdown(ctx); err != nil {
			a.log.Warn("close the status server", "addr", sv.addr, "err", err)
		}
		if err := <-sv.done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, fmt.Errorf("serve %s: %w", sv.addr, err))
		}
	}
	return errors.Join(errs...)
}

// pageHandler routes --listen: /healthz open, the rest behind the token when there is one.
func (f *serveFlags) pageHandler(w *watch.Watcher) (http.Handler, error) {
	mux := http.NewServeMux()
	mux.Handle("/", w.StatusHandler())
	if f.MetricsListen == "" {
		mux.Handle("/metrics", w.Metrics.Handler())
	}
	var h http.Handler = mux
	if f.TokenFile != "" {
		token, err := readToken(f.TokenFile)
		if err != nil {
			return nil, err
		}
		h = requireToken(token, mux)
	}
	outer := http.NewServeMux()
	outer.HandleFunc("/healthz", healthz)
	outer.Handle("/", h)
	return outer, nil
}

func metricsMux(w *watch.Watcher) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", healthz)
	mux.Handle("/metrics", w.Metrics.Handler())
	return mux
}

func healthz(rw http.ResponseWriter, _ *http.Request) {
	rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprint(rw, "ok\n")
}

// readToken reads --token-file: its content without surrounding blanks, never empty.
func readToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read --token-file: %v: %w", err, state.ErrBadInput)
	}
	token := strings.TrimSpace(string(b))
	if token == "" || strings.ContainsAny(token, " \t\r\n") {
		return "", fmt.Errorf("--token-file %s: want one token on one line (e.g. `openssl rand -hex 32 > %s`): %w",
			path, path, state.ErrBadInput)
	}
	return token, nil
}

// requireToken answers 401 to a request without "Authorization: Bearer token".
func requireToken(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			rw.Header().Set("WWW-Authenticate", `Bearer realm="kupgrade watch"`)
			http.Error(rw, "unauthorized: send the header Authorization: Bearer TOKEN, TOKEN being the content of watch's --token-file",
				http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(rw, r)
	})
}

// tlsConfig loads --tls-cert and --tls-key (nil without them).
func (f *serveFlags) tlsConfig() (*tls.Config, error) {
	if f.TLSCert == "" && f.TLSKey == "" {
		return nil, nil
	}
	if f.TLSCert == "" || f.TLSKey == "" {
		return nil, fmt.Errorf("--tls-cert and --tls-key go together: %w", state.ErrBadInput)
	}
	cert, err := tls.LoadX509KeyPair(f.TLSCert, f.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s, --tls-key %s: %v: %w", f.TLSCert, f.TLSKey, err, state.ErrBadInput)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
