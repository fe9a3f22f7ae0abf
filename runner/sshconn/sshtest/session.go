package sshtest

import (
	"io"
	"os/exec"
	"sync"
	"syscall"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// signals are the SSH signal names a "signal" request may carry.
var signals = map[ssh.Signal]syscall.Signal{
	ssh.SIGABRT: syscall.SIGABRT, ssh.SIGALRM: syscall.SIGALRM, ssh.SIGFPE: syscall.SIGFPE,
	ssh.SIGHUP: syscall.SIGHUP, ssh.SIGILL: syscall.SIGILL, ssh.SIGINT: syscall.SIGINT,
	ssh.SIGKILL: syscall.SIGKILL, ssh.SIGPIPE: syscall.SIGPIPE, ssh.SIGQUIT: syscall.SIGQUIT,
	ssh.SIGSEGV: syscall.SIGSEGV, ssh.SIGTERM: syscall.SIGTERM, ssh.SIGUSR1: syscall.SIGUSR1,
	ssh.SIGUSR2: syscall.SIGUSR2,
}

// session serves one session channel as sshd does without a pty: an exec runs `sh -c` in a
// new session and only that process receives signals; closing the channel kills nothing.
func (s *Server) session(nch ssh.NewChannel) {
	ch, reqs, err := nch.Accept()
	if err != nil {
		return
	}
	var (
		mu      sync.Mutex
		proc    *exec.Cmd
		started bool
	)
	for r := range reqs {
		switch r.Type {
		case "env":
			r.Reply(true, nil) //nolint:errcheck // the client may be gone
		case "exec", "subsystem":
			var arg struct{ Value string }
			if started || ssh.Unmarshal(r.Payload, &arg) != nil || (r.Type == "subsystem" && arg.Value != "sftp") {
				r.Reply(false, nil) //nolint:errcheck // the client may be gone
				continue
			}
			started = true
			if r.Type == "subsystem" {
				r.Reply(true, nil) //nolint:errcheck // the client may be gone
				go s.sftp(ch)
				continue
			}
			cmd, err := s.start(ch, arg.Value)
			r.Reply(err == nil, nil) //nolint:errcheck // the client may be gone
			if err != nil {
				ch.Close()
				continue
			}
			mu.Lock()
			proc = cmd
			mu.Unlock()
			go s.finish(ch, cmd)
		case "signal":
			var arg struct{ Name string }
			if ssh.Unmarshal(r.Payload, &arg) == nil {
				mu.Lock()
				if sig, ok := signals[ssh.Signal(arg.Name)]; ok && proc != nil {
					proc.Process.Signal(sig) //nolint:errcheck // it may have exited
				}
				mu.Unlock()
			}
			r.Reply(true, nil) //nolint:errcheck // the client may be gone
		default:
			r.Reply(false, nil) //nolint:errcheck // the client may be gone
		}
	}
}

func (s *Server) start(ch ssh.Channel, command string) (*exec.Cmd, error) {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = s.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.procs[cmd.Process.Pid] = true
	s.mu.Unlock()
	go func() {
		io.Copy(stdin, ch) //nolint:errcheck // ends with the channel or the process
		stdin.Close()
	}()
	return cmd, nil
}

// finish reports the exit status or signal once the output is drained, then closes the channel.
func (s *Server) finish(ch ssh.Channel, cmd *exec.Cmd) {
	cmd.Wait() //nolint:errcheck // the status is in ProcessState
	st := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if st.Signaled() {
		name := "KILL"
		for n, sig := range signals {
			if sig == st.Signal() {
				name = string(n)
			}
		}
		ch.SendRequest("exit-signal", false, ssh.Marshal(struct { //nolint:errcheck // the client may be gone
			Signal     string
			CoreDumped bool
			Error      string
			Lang       string
		}{Signal: name})) //nolint:errcheck // the client may be gone
	} else {
		ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(st.ExitStatus())})) //nolint:errcheck // the client may be gone
	}
	ch.Close()
}

// sftp serves the sftp subsystem; relative paths start in Dir.
func (s *Server) sftp(ch ssh.Channel) {
	srv, err := sftp.NewServer(ch, sftp.WithServerWorkingDirectory(s.Dir))
	if err == nil {
		srv.Serve() //nolint:errcheck // ends when the client goes
		srv.Close()
	}
	ch.Close()
}
