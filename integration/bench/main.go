package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/crypto/ssh"
)

type options struct {
	ns, ansibleNs []int
	runs          int
	kupgrade      string
	sftp, keep    bool
	python        int // N of the Python measure, 0 for none
}

func main() {
	var o options
	var ns, ans string
	flag.StringVar(&ns, "n", "5,20,50", "numbers of servers to measure, comma-separated")
	flag.StringVar(&ans, "ansible-n", "5,20", "the N at which ansible-playbook also runs (it takes minutes); \"\" for none")
	flag.IntVar(&o.runs, "runs", 3, "runs of each Go client per N; the table shows the median")
	flag.StringVar(&o.kupgrade, "kupgrade", "", "kupgrade binary to measure (default: build ./cmd/kupgrade)")
	flag.BoolVar(&o.sftp, "sftp", true, "also measure a 64 MiB upload")
	flag.IntVar(&o.python, "python", 5, "N at which to measure a Python module's cost per task (ansible.builtin.find vs command); 0 for none")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary folder (configs, inventory, playbook) and print its path")
	flag.Parse()
	var err error
	if o.ns, err = parseNs(ns); err == nil {
		o.ansibleNs, err = parseNs(ans)
	}
	if err == nil && o.runs < 1 {
		err = errors.New("-runs must be at least 1")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseNs(s string) ([]int, error) {
	var ns []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > 500 {
			return nil, fmt.Errorf("N %q: want a number from 1 to 500", f)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

func run(ctx context.Context, o options, out, log io.Writer) error {
	if _, err := os.Stat(sshdPath); err != nil {
		return fmt.Errorf("%s missing: apt-get install -y openssh-server", sshdPath)
	}
	if err := raiseFileLimit(slices.Max(append(o.ns, 1))); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "kupgrade-bench-")
	if err != nil {
		return fmt.Errorf("create temp folder: %w", err)
	}
	if o.keep {
		fmt.Fprintln(log, "files in", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	w := newWorkspace(dir)
	clientPub, err := writeClientKey(w.KeyFile)
	if err != nil {
		return err
	}
	if err := w.writeFixed(); err != nil {
		return err
	}
	if o.kupgrade == "" {
		if o.kupgrade, err = buildKupgrade(ctx, dir); err != nil {
			return err
		}
	}
	if len(o.ansibleNs) > 0 {
		if _, err := exec.LookPath("ansible-playbook"); err != nil {
			fmt.Fprintln(log, "ansible-playbook missing (apt-get install -y ansible-core): measuring without it")
			o.ansibleNs = nil
		}
	}
	var rows []row
	for _, n := range o.ns {
		rs, err := measureN(ctx, o, w, n, clientPub, log)
		if err != nil {
			return err
		}
		rows = append(rows, rs...)
	}
	fmt.Fprintln(out, setupNote)
	printTable(out, rows)
	fmt.Fprintln(out, targets(rows, o.ns))
	if o.python > 0 {
		c, err := pythonOnce(ctx, o, w, o.python, clientPub, log)
		if err != nil {
			return err
		}
		printPyCost(out, c)
	}
	if o.sftp {
		ts, err := sftpOnce(ctx, w, clientPub)
		if err != nil {
			return err
		}
		printTransfers(out, ts)
	}
	return nil
}

const setupNote = `Each host: 10 x command /bin/true, copy 1 MiB, stat; forks = N; one sshd per host on 127.0.0.1
(SetEnv SHLVL=1: the login bash skips ~/.bashrc for every tool). Client CPU: child rusage, plus /proc
CPU of the ControlPersist masters ansible leaves behind; in-process rows: getrusage self.`

func writeClientKey(path string) (ssh.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate client key: %w", err)
	}
	if err := writePrivateKey(path, priv); err != nil {
		return nil, err
	}
	return ssh.NewPublicKey(pub)
}

// buildKupgrade builds ./cmd/kupgrade of the module this is run in.
func buildKupgrade(ctx context.Context, dir string) (string, error) {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(gomod)) == "" {
		return "", fmt.Errorf("find the module: run from the kupgrade tree (%v)", err)
	}
	bin := filepath.Join(dir, "kupgrade")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/kupgrade")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build kupgrade: %w\n%s", err, b)
	}
	return bin, nil
}

func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}
