package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

// becomeSubreaper makes processes orphaned by a tool (ssh ControlPersist masters detach from
// ansible-playbook) become children of the benchmark rather than of init, so their CPU time
// can be counted as the tool's.
func becomeSubreaper() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("prctl PR_SET_CHILD_SUBREAPER: %w", errno)
	}
	return nil
}

// reapOrphans ends every child of this process not in keep (the sshd servers), waits for it
// and returns the CPU time it and its descendants used. Called between runs, when the only
// other children are the servers.
func reapOrphans(keep map[int]bool) time.Duration {
	var total time.Duration
	for range 5 { // a dying master may leave one more orphan behind
		pids := childPIDs(keep)
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGTERM) //nolint:errcheck // it may be a zombie already
			total += waitCPU(pid)
		}
	}
	return total
}

// waitCPU waits for pid (killing it after 5 s) and returns its rusage CPU time.
func waitCPU(pid int) time.Duration {
	done := make(chan syscall.Rusage, 1)
	go func() {
		var ru syscall.Rusage
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pid, &ws, 0, &ru)
			if err != syscall.EINTR {
				break
			}
		}
		done <- ru
	}()
	var ru syscall.Rusage
	select {
	case ru = <-done:
	case <-time.After(5 * time.Second):
		syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck // best effort
		ru = <-done
	}
	return cpuOf(ru)
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

// childPIDs lists this process's children that are not in keep, from /proc.
func childPIDs(keep map[int]bool) []int {
	self := strconv.Itoa(os.Getpid())
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || keep[pid] {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the parenthesised command name: state, ppid, ...
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 && f[1] == self {
			pids = append(pids, pid)
		}
	}
	return pids
}
