package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/kupgrade/kupgrade/internal/fault"
)

// interruptible is the context of a command: Ctrl-C and SIGTERM cancel it with the cause
// fault.ErrInterrupted, so that advice after a failure can tell an interrupt from a fault.
func interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel(fault.ErrInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}
