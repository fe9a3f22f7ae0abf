package modules

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// modWaitForConnection is Ansible's wait_for_connection, run on the controller: after delay
// seconds it dials the host again (Task.Redial) and runs ping over the new connection, every
// sleep seconds, each try bounded by connect_timeout, until one answers pong or timeout
// seconds have passed (then it fails with Ansible's "timed out waiting for ping module test").
// It is skipped in check mode, as Ansible's.
func modWaitForConnection(ctx context.Context, m *Task, args map[string]any) (Result, error) {
	if m.Check {
		return Result{"changed": false, "skipped": true}, nil
	}
	n := map[string]int{"connect_timeout": 5, "delay": 0, "sleep": 1, "timeout": 600}
	for k := range n {
		if s := ArgStr(args, k); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil {
				return Failure(fmt.Sprintf("wait_for_connection: %s %q is not a whole number of seconds", k, s)), nil
			}
			n[k] = v
		}
	}
	if m.Redial == nil {
		return Failure("wait_for_connection: this runner cannot dial the host again"), nil
	}
	start := time.Now()
	err := sleepCtx(ctx, time.Duration(n["delay"])*time.Second)
	end := time.Now().Add(time.Duration(n["timeout"]) * time.Second)
	last := fmt.Errorf("no try within %d seconds", n["timeout"])
	for err == nil && time.Now().Before(end) {
		if last = pingAgain(ctx, m, time.Duration(n["connect_timeout"])*time.Second); last == nil {
			return Result{"changed": false, "failed": false, "elapsed": int(time.Since(start).Seconds())}, nil
		}
		err = sleepCtx(ctx, time.Duration(n["sleep"])*time.Second)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	res := Failure(fmt.Sprintf("timed out waiting for ping module test: %v", last))
	res["elapsed"] = int(time.Since(start).Seconds())
	return res, nil
}

// pingAgain dials the host again and runs ping over the new connection, within limit.
func pingAgain(ctx context.Context, m *Task, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := redialWithin(ctx, m, limit); err != nil {
		return err
	}
	out, err := m.runPlain(ctx, "echo pong")
	if err != nil {
		return err
	}
	if out.rc != 0 || out.stdout != "pong\n" {
		return fmt.Errorf("ping test failed")
	}
	return nil
}

// redialWithin dials the host again (Task.Redial) within limit and makes the new connection the
// task's.
func redialWithin(ctx context.Context, m *Task, limit time.Duration) error {
	if m.Redial == nil {
		return fmt.Errorf("this runner cannot dial the host again")
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	c, err := m.Redial(ctx)
	if err != nil {
		return err
	}
	m.Conn = c
	return nil
}

// sleepCtx waits d, or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
