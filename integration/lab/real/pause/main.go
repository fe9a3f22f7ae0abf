// Command pause is the lab's pod sandbox image (the role of registry.k8s.io/pause): it sleeps
// until SIGTERM or SIGINT, reaping children as PID 1 must, and exits 0. With -v it prints its
// version and exits 0 at once, which kubeadm's upgrade health check relies on (a Job that runs
// the pause image with -v and waits for it to complete).
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const version = "3.9-kupgrade-lab"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-v" {
		fmt.Println("pause.go version " + version)
		return
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for sig := range sigs {
		if sig != syscall.SIGCHLD {
			return
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
