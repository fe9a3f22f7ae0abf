// Command kupgrade-fleetsim serves a simulated fleet (internal/sim) until interrupted: N
// clusters of 2 controllers and 1 worker on one SSH listener on 127.0.0.1, and one inventory per
// cluster in DIR/inventories, for trying `kupgrade fleet run` without a thousand machines.
//
//	kupgrade-fleetsim -n 200 -dir /tmp/fleet -late 50 &
//	kupgrade fleet run --to v1.30.1 --inventories /tmp/fleet/inventories
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/kupgrade/kupgrade/internal/sim"
)

func main() {
	n := flag.Int("n", 10, "clusters")
	workers := flag.Int("workers", 1, "workers per cluster (2 controllers each)")
	dir := flag.String("dir", "", "folder for the inventories, the client key and known_hosts (created)")
	late := flag.Int("late", 0, "give every Nth cluster (the 2nd, the N+2nd, ...) a late kubeadm failure on its second controller, once (0: none)")
	delay := flag.Duration("kubeadm-delay", 0, "how long each `kubeadm upgrade` takes")
	flag.Parse()
	if *dir == "" || *n < 1 {
		fmt.Fprintln(os.Stderr, "kupgrade-fleetsim: give -dir DIR and -n N (at least 1)")
		os.Exit(2)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "kupgrade-fleetsim:", err)
		os.Exit(1)
	}
	o := sim.Options{Clusters: *n, Controllers: 2, Workers: *workers, From: "v1.29.4", To: "v1.30.1", Dir: *dir, KubeadmDelay: *delay}
	if *late > 0 {
		o.LateFailure = func(i int) bool { return i%*late == 1 }
	}
	f, err := sim.Start(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kupgrade-fleetsim:", err)
		os.Exit(1)
	}
	defer f.Close()
	fmt.Printf("serving %d clusters (v1.29.4, kubeadm v1.30.1) on %s; inventories in %s\n", *n, f.Addr, f.Inventories)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
}
