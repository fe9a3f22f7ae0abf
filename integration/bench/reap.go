package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is USER_HZ, the unit of the CPU times in /proc/PID/stat (100 on Linux).
const clockTick = 10 * time.Millisecond

// mastersCPU finds the ssh ControlPersist masters whose sockets are in controlDir (ansible's
// ssh detaches them, so the child's rusage misses the SSH crypto they did), adds up their CPU
// time from /proc and ends them, so the next run starts without warm connections.
//
// Why not make the benchmark a child subreaper and reap them: then the processes the sshd
// servers orphan (the remote commands' leftovers) would be reaped and counted as the
// client's too.
func mastersCPU(controlDir string) time.Duration {
	var total time.Duration
	var pids []int
	for _, pid := range procPIDs() {
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil || !bytes.HasPrefix(cmdline, []byte("ssh: ")) || !bytes.Contains(cmdline, []byte(controlDir+"/")) {
			continue
		}
		total += procCPU(pid)
		syscall.Kill(pid, syscall.SIGTERM) //nolint:errcheck // it may have exited
		pids = append(pids, pid)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		alive := 0
		for _, pid := range pids {
			if syscall.Kill(pid, 0) == nil {
				alive++
			}
		}
		if alive == 0 {
			break
		}
	}
	return total
}

// procCPU is pid's user and system time plus that of its waited-for children.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command name start at state (field 3); utime, stime,
	// cutime and cstime are fields 14 to 17.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	var ticks int64
	for _, i := range []int{14, 15, 16, 17} {
		if len(f) > i-3 {
			n, _ := strconv.ParseInt(f[i-3], 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * clockTick
}

func procPIDs() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

func cpuOf(ru syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// selfCPU is this process's own CPU time so far (the in-process clients).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return cpuOf(ru)
}
