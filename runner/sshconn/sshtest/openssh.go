package sshtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// SSHD is where NewOpenSSH looks for the OpenSSH server.
const SSHD = "/usr/sbin/sshd"

// NewOpenSSH starts the system's sshd on 127.0.0.1 (a free port, its own config and host key
// in a temporary folder), logging in as the current user with KeyFile. Commands start in the
// user's home folder; Dir is a scratch folder to use by absolute path. Without sshd the test
// is skipped, or fails when CI=true.
func NewOpenSSH(t testing.TB, opts ...Option) *Server {
	t.Helper()
	if _, err := os.Stat(SSHD); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is missing: install openssh-server", SSHD)
		}
		t.Skipf("%s not installed (install openssh-server to run this test)", SSHD)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatalf("current user: %v", err)
	}
	if os.Geteuid() == 0 {
		// sshd run as root insists on its privilege-separation folder, which the service
		// unit normally creates.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatalf("create /run/sshd: %v", err)
		}
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	var lastErr error
	for range 3 { // the free port may be taken between finding and binding it
		s := &Server{User: u.Username, Dir: t.TempDir()}
		s.Port = freePort(t)
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
		if lastErr = s.startSSHD(t, o); lastErr == nil {
			return s
		}
	}
	t.Fatalf("start sshd: %v", lastErr)
	return nil
}

func (s *Server) startSSHD(t testing.TB, o options) error {
	t.Helper()
	dir := t.TempDir()
	if o.hostKey == nil {
		o.hostKey = NewHostKey(t)
	}
	s.setupKeys(t, &o)
	hostKeyFile := filepath.Join(dir, "host_ed25519")
	writePrivateKey(t, hostKeyFile, o.hostKey)
	authorized := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authorized, ssh.MarshalAuthorizedKey(s.clientKey(t)), 0o600); err != nil {
		return err
	}
	cfg := filepath.Join(dir, "sshd_config")
	conf := fmt.Sprintf(`ListenAddress 127.0.0.1
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
Subsystem sftp internal-sftp
SetEnv SHLVL=1
MaxSessions 1000
MaxStartups 1000
LogLevel ERROR
`, s.Port, hostKeyFile, authorized)
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		return err
	}
	log := &runnertest.Buffer{}
	cmd := exec.Command(SSHD, "-D", "-e", "-f", cfg)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() //nolint:errcheck // its log says why
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		select {
		case <-exited:
			return fmt.Errorf("sshd exited: %s", log.String())
		default:
		}
		if c, err := net.Dial("tcp", s.Addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill() //nolint:errcheck // giving up
			return fmt.Errorf("sshd did not listen on %s: %s", s.Addr, log.String())
		}
	}
	s.sshd = cmd.Process
	t.Cleanup(func() {
		s.signalSSHD(syscall.SIGCONT, true)
		cmd.Process.Kill() //nolint:errcheck // it may have died
		<-exited
		if t.Failed() && log.Len() > 0 {
			t.Logf("sshd log:\n%s", log.String())
		}
	})
	return nil
}

// signalSSHD signals sshd's per-connection processes, and the listener itself when
// withListener is set.
func (s *Server) signalSSHD(sig syscall.Signal, withListener bool) {
	if withListener {
		s.sshd.Signal(sig) //nolint:errcheck // it may have exited
	}
	for _, pid := range children(s.sshd.Pid) {
		syscall.Kill(pid, sig) //nolint:errcheck // it may have exited
	}
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the parenthesised command name: state, ppid, ...
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}
