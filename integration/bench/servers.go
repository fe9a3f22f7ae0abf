package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/kupgrade/kupgrade/runner/runnertest"
)

const sshdPath = "/usr/sbin/sshd"

// server is one OpenSSH server on 127.0.0.1 with its own folder, config and host key.
type server struct {
	Name    string
	Port    int
	HostKey ssh.PublicKey
	cmd     *exec.Cmd
	exited  chan struct{}
	log     *runnertest.Buffer
}

// sshdConfig is the config of every benchmark server. SetEnv SHLVL=1 makes bash, the login
// shell, skip ~/.bashrc for commands sent over SSH (it reads it only at shell level < 2), so
// a heavy rc (root's runs pyenv init) costs no tool anything; every tool logs in through the
// same servers, so they all get the same light shell.
func sshdConfig(port int, hostKey, authorized string) string {
	return fmt.Sprintf(`ListenAddress 127.0.0.1
Port %d
HostKey %s
PidFile none
AuthorizedKeysFile %s
UsePAM no
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
PermitUserEnvironment no
Subsystem sftp internal-sftp
SetEnv SHLVL=1
MaxSessions 1000
MaxStartups 1000
LogLevel ERROR
`, port, hostKey, authorized)
}

// startFleet starts n servers under dir, each accepting the client key clientPub.
func startFleet(ctx context.Context, dir string, n int, clientPub ssh.PublicKey) ([]*server, error) {
	if os.Geteuid() == 0 {
		// sshd run as root wants its privilege-separation folder, which its service unit makes.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			return nil, fmt.Errorf("create /run/sshd: %w", err)
		}
	}
	authorized := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authorized, ssh.MarshalAuthorizedKey(clientPub), 0o600); err != nil {
		return nil, fmt.Errorf("write authorized_keys: %w", err)
	}
	servers := make([]*server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			servers[i], errs[i] = startServer(ctx, dir, fmt.Sprintf("h%03d", i+1), authorized)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		stopFleet(servers)
		return nil, err
	}
	return servers, nil
}

func startServer(ctx context.Context, dir, name, authorized string) (*server, error) {
	sdir := filepath.Join(dir, "sshd", name)
	if err := os.MkdirAll(sdir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", sdir, err)
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate host key: %w", err)
	}
	keyFile := filepath.Join(sdir, "host_ed25519")
	if err := writePrivateKey(keyFile, priv); err != nil {
		return nil, err
	}
	hostKey, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	var lastErr error
	for range 3 { // the free port may be taken between finding and binding it
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		cfg := filepath.Join(sdir, "sshd_config")
		if err := os.WriteFile(cfg, []byte(sshdConfig(port, keyFile, authorized)), 0o600); err != nil {
			return nil, fmt.Errorf("write sshd_config: %w", err)
		}
		s := &server{Name: name, Port: port, HostKey: hostKey, exited: make(chan struct{}), log: &runnertest.Buffer{}}
		if lastErr = s.start(ctx, cfg); lastErr == nil {
			return s, nil
		}
	}
	return nil, fmt.Errorf("start sshd %s: %w", name, lastErr)
}

func (s *server) start(ctx context.Context, cfg string) error {
	s.cmd = exec.Command(sshdPath, "-D", "-e", "-f", cfg)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	// A benchmark killed outright must not leave listeners behind.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	go func() { s.cmd.Wait(); close(s.exited) }() //nolint:errcheck // its log says why
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		select {
		case <-s.exited:
			return fmt.Errorf("sshd exited: %s", s.log.String())
		case <-ctx.Done():
			s.stop()
			return ctx.Err()
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			s.stop()
			return fmt.Errorf("sshd did not listen on %s: %s", addr, s.log.String())
		}
	}
}

// stop kills the listener; connections still open end with their clients.
func (s *server) stop() {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Kill() //nolint:errcheck // it may have exited already
	<-s.exited
}

func stopFleet(servers []*server) {
	for _, s := range servers {
		s.stop()
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// writePrivateKey writes key in OpenSSH's format, mode 0600 (ssh and sshd refuse others).
func writePrivateKey(path string, key ed25519.PrivateKey) error {
	block, err := ssh.MarshalPrivateKey(key, "")
	if err != nil {
		return fmt.Errorf("encode key: %w", err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		return fmt.Errorf("write key: %w", err)
	}
	return nil
}

// raiseFileLimit lifts the soft limit of open files to the hard one for this process and, since
// it is set explicitly, for the tools it starts (Go restores the original soft limit for child
// processes unless the program sets it itself): at N = 200, ansible-playbook's forks and their
// ssh masters alone pass a soft limit of 1024. It fails when even the hard limit is too low for
// n servers.
func raiseFileLimit(n int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("read the open files limit: %w", err)
	}
	need := uint64(8*n + 256) // per host: a client connection, an sshd pipe, ansible's fork and ssh master
	if lim.Max < need {
		return fmt.Errorf("%d servers need about %d open files, but the hard limit is %d: raise it (ulimit -Hn, or LimitNOFILE) or measure a smaller N", n, need, lim.Max)
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return fmt.Errorf("raise the open files limit to %d: %w", lim.Max, err)
		}
	}
	return nil
}
