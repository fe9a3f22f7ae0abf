package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner/sshconn"
)

const bigSize = 64 << 20

// transfer is one 64 MiB upload.
type transfer struct {
	Label string
	Dur   time.Duration
	Err   error
}

func (t transfer) mbps() float64 { return float64(bigSize) / 1e6 / t.Dur.Seconds() }

// measureSFTP uploads a 64 MiB file to one server with sshconn (on a new connection, dial
// included, then again on the same connection) and with the sftp command-line client.
func measureSFTP(ctx context.Context, w *workspace, h *inventory.Host) []transfer {
	big := filepath.Join(w.Dir, "big.bin")
	if err := writeRandom(big, bigSize); err != nil {
		return []transfer{{Label: "prepare", Err: err}}
	}
	defer os.Remove(big)
	var out []transfer
	d := &sshconn.Dialer{KnownHosts: w.KnownHosts}
	start := time.Now()
	c, err := d.Dial(ctx, h)
	if err != nil {
		return []transfer{{Label: "sshconn dial", Err: err}}
	}
	defer c.Close()
	for _, label := range []string{"sshconn Upload, new connection (dial included)", "sshconn Upload, reused connection"} {
		dest := filepath.Join(w.DestDir, "big-sshconn.bin")
		err := uploadFile(ctx, c, big, dest)
		out = append(out, transfer{Label: label, Dur: time.Since(start), Err: checkSize(dest, err)})
		start = time.Now()
	}
	dest := filepath.Join(w.DestDir, "big-cli.bin")
	batch := filepath.Join(w.Dir, "sftp.batch")
	if err := writeFile(batch, fmt.Sprintf("put %s %s\n", big, dest)); err != nil {
		return append(out, transfer{Label: "sftp -b", Err: err})
	}
	cmd := exec.CommandContext(ctx, "sftp", "-q", "-b", batch, "-i", w.KeyFile, "-P", strconv.Itoa(h.Port()),
		"-o", "UserKnownHostsFile="+w.KnownHosts, "-o", "StrictHostKeyChecking=yes",
		"-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", h.User()+"@"+h.Address())
	cmd.Env = childEnv()
	m, _ := runChild(ctx, cmd)
	return append(out, transfer{Label: "sftp -b (connect included)", Dur: m.Wall, Err: checkSize(dest, m.Err)})
}

func uploadFile(ctx context.Context, c *sshconn.Client, src, dest string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	return c.Upload(ctx, f, dest, 0o644)
}

// checkSize confirms the upload arrived whole (the servers share this machine's disk).
func checkSize(dest string, err error) error {
	if err != nil {
		return err
	}
	fi, err := os.Stat(dest)
	if err != nil {
		return err
	}
	if fi.Size() != bigSize {
		return fmt.Errorf("%s: %d bytes, want %d", dest, fi.Size(), bigSize)
	}
	return nil
}

func writeRandom(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(f, rand.Reader, size); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

func printTransfers(w io.Writer, ts []transfer) {
	fmt.Fprintf(w, "\nsftp: 64 MiB to one server (target >= %.0f MB/s, MB = 10^6 bytes)\n", wantMBps)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range ts {
		if t.Err != nil {
			fmt.Fprintf(tw, "  %s\tFAILED: %v\n", t.Label, t.Err)
			continue
		}
		fmt.Fprintf(tw, "  %s\t%.2f s\t%.0f MB/s\n", t.Label, t.Dur.Seconds(), t.mbps())
	}
	tw.Flush()
	for _, t := range ts {
		if t.Label == "sshconn Upload, reused connection" && t.Err == nil {
			fmt.Fprintf(w, "target: sshconn upload %.0f MB/s (want >= %.0f) %s\n", t.mbps(), wantMBps, verdict(t.mbps() >= wantMBps))
		}
	}
}
