package sshconn_test

import (
	"bytes"
	"crypto/rand"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

// BenchmarkRun measures one command over a reused connection: a script and an `exec` line (what
// the command module sends) in each agent mode, and a bare session per command for comparison.
func BenchmarkRun(b *testing.B) {
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			srv := k.start(b)
			for _, mode := range sshconn.AgentModes {
				for _, cmd := range []string{"/bin/true", "exec /bin/true"} {
					b.Run(mode+"/"+cmd, func(b *testing.B) {
						c := dialB(b, srv, sshconn.AgentMode(b, mode))
						for b.Loop() {
							if exit, err := c.Run(b.Context(), cmd, nil, nil, nil); err != nil || exit != 0 {
								b.Fatalf("Run = %d, %v", exit, err)
							}
						}
					})
				}
			}
			b.Run("bare session", func(b *testing.B) {
				c := dialB(b, srv)
				for b.Loop() {
					if err := c.RunBareSession("/bin/true"); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

func dialB(b *testing.B, srv *sshtest.Server, opts ...sshconn.DialOption) *sshconn.Client {
	d := srv.Dialer()
	for _, o := range opts {
		o(d)
	}
	c, err := d.Dial(b.Context(), srv.Host("node"))
	if err != nil {
		b.Fatalf("Dial: %v", err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// BenchmarkUpload64MiB measures SFTP upload throughput against the real sshd (MB/s).
func BenchmarkUpload64MiB(b *testing.B) {
	srv := sshtest.NewOpenSSH(b)
	c, err := srv.Dialer().Dial(b.Context(), srv.Host("node"))
	if err != nil {
		b.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	data := make([]byte, 64<<20)
	rand.Read(data)
	dst := filepath.Join(srv.Dir, "big")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := c.Upload(b.Context(), bytes.NewReader(data), dst, 0o644); err != nil {
			b.Fatalf("Upload: %v", err)
		}
	}
}
