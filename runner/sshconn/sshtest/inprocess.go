package sshtest

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os/user"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/crypto/ssh"
)

// NewServer starts an in-process SSH server on 127.0.0.1 for the rest of the test.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	s := &Server{ln: ln, Addr: ln.Addr().String(), Dir: t.TempDir(), User: "kupgrade",
		freeze: newGate(), procs: map[int]bool{}}
	s.Port = ln.Addr().(*net.TCPAddr).Port
	if u, err := user.Current(); err == nil {
		s.User = u.Username
	}
	hostSigner := s.setupKeys(t, &o)
	allowed := s.clientKey(t).Marshal()
	s.cfg = &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if bytes.Equal(key.Marshal(), allowed) {
				return &ssh.Permissions{}, nil
			}
			return nil, errors.New("key not authorized")
		},
	}
	s.cfg.AddHostKey(hostSigner)
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(s.close)
	return s
}

// Connections is how many SSH connections completed their handshake so far.
func (s *Server) Connections() int { return int(s.conns.Load()) }

// Sessions is how many session channels were opened so far (one per Run, one per SFTP client).
func (s *Server) Sessions() int { return int(s.sessions.Load()) }

// Freeze makes the server stop answering on every connection, open or future, like a host that
// vanished from the network without a reset (sshd is stopped with SIGSTOP). Thaw undoes it.
func (s *Server) Freeze() {
	if s.sshd != nil {
		s.signalSSHD(syscall.SIGSTOP, true)
		return
	}
	s.freeze.close()
}

// Thaw lets frozen connections go on.
func (s *Server) Thaw() {
	if s.sshd != nil {
		s.signalSSHD(syscall.SIGCONT, true)
		return
	}
	s.freeze.open()
}

// Drop ends every open connection abruptly, like a server that crashed (sshd's per-connection
// processes are killed).
func (s *Server) Drop() {
	if s.sshd != nil {
		s.signalSSHD(syscall.SIGKILL, false)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.open {
		c.Close()
	}
	s.open = nil
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		c := &frozenConn{Conn: nc, g: s.freeze}
		s.mu.Lock()
		s.open = append(s.open, c)
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serve(c)
		}()
	}
}

func (s *Server) serve(nc net.Conn) {
	defer nc.Close()
	conn, chans, reqs, err := ssh.NewServerConn(nc, s.cfg)
	if err != nil {
		return
	}
	defer conn.Close()
	s.conns.Add(1)
	go func() {
		for r := range reqs {
			// OpenSSH answers keepalive@openssh.com (and anything unknown) with a failure.
			r.Reply(false, nil) //nolint:errcheck // the client may be gone
		}
	}()
	for nch := range chans {
		switch nch.ChannelType() {
		case "session":
			s.sessions.Add(1)
			go s.session(nch)
		case "direct-tcpip":
			go forward(nch)
		default:
			nch.Reject(ssh.UnknownChannelType, "unsupported channel type") //nolint:errcheck // best effort
		}
	}
}

// forward serves a jump host's direct-tcpip channel.
func forward(nch ssh.NewChannel) {
	var req struct {
		Host     string
		Port     uint32
		FromHost string
		FromPort uint32
	}
	if err := ssh.Unmarshal(nch.ExtraData(), &req); err != nil {
		nch.Reject(ssh.ConnectionFailed, "bad request") //nolint:errcheck // best effort
		return
	}
	dst, err := net.Dial("tcp", net.JoinHostPort(req.Host, strconv.Itoa(int(req.Port))))
	if err != nil {
		nch.Reject(ssh.ConnectionFailed, err.Error()) //nolint:errcheck // best effort
		return
	}
	ch, reqs, err := nch.Accept()
	if err != nil {
		dst.Close()
		return
	}
	go ssh.DiscardRequests(reqs)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); io.Copy(dst, ch); dst.(*net.TCPConn).CloseWrite() }() //nolint:errcheck // ends with the peer
	go func() { defer wg.Done(); io.Copy(ch, dst); ch.CloseWrite() }()                 //nolint:errcheck // ends with the peer
	wg.Wait()
	ch.Close()
	dst.Close()
}

// close stops the server and kills whatever its commands left behind.
func (s *Server) close() {
	s.ln.Close()
	s.Drop()
	s.freeze.open()
	s.mu.Lock()
	for pgid := range s.procs {
		// A command's children may have process groups of their own (kupgrade's wrapper
		// puts the command in one): kill those first, while they can still be found.
		for _, child := range children(pgid) {
			syscall.Kill(-child, syscall.SIGKILL) //nolint:errcheck // most are gone already
		}
		syscall.Kill(-pgid, syscall.SIGKILL) //nolint:errcheck // most are gone already
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// gate blocks I/O while closed.
type gate struct {
	mu     sync.Mutex
	opened chan struct{}
}

func newGate() *gate {
	g := &gate{opened: make(chan struct{})}
	close(g.opened)
	return g
}

func (g *gate) wait() {
	g.mu.Lock()
	ch := g.opened
	g.mu.Unlock()
	<-ch
}

func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.opened:
		g.opened = make(chan struct{})
	default:
	}
}

func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.opened:
	default:
		close(g.opened)
	}
}

// frozenConn is a connection that stops moving bytes while its gate is closed.
type frozenConn struct {
	net.Conn
	g *gate
}

func (c *frozenConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.g.wait() // data that arrived while frozen is never seen until the thaw
	return n, err
}

func (c *frozenConn) Write(p []byte) (int, error) {
	c.g.wait()
	return c.Conn.Write(p)
}
