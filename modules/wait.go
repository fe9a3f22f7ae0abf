package modules

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// modWaitFor waits on the host itself, in one remote loop: for a TCP port to accept (or stop
// accepting) connections, or a path to appear (or go). The loop ends at the timeout on its own,
// and the task's context cancels it like any command.
func modWaitFor(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	timeout := 300
	if s := ArgStr(args, "timeout"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return Failure(fmt.Sprintf("wait_for: timeout %q is not a number of seconds", s)), nil
		}
		timeout = n
	}
	delay, _ := strconv.Atoi(ArgStr(args, "delay"))
	sleep := ArgStr(args, "sleep")
	if sleep == "" {
		sleep = "1"
	}
	state := ArgStr(args, "state")
	var check, what string
	switch p, port := ArgStr(args, "path"), ArgStr(args, "port"); {
	case p != "":
		what = "path " + p
		check = "[ -e " + quote(p) + " ]"
		if state == "" {
			state = "present"
		}
	case port != "":
		if _, err := strconv.Atoi(port); err != nil {
			return Failure(fmt.Sprintf("wait_for: port %q is not a number", port)), nil
		}
		host := ArgStr(args, "host")
		if host == "" {
			host = "127.0.0.1"
		}
		if !shellword.Plain(host) {
			return Failure(fmt.Sprintf("wait_for: bad host %q", host)), nil
		}
		what = "port " + host + ":" + port
		check = portProbe(host, port)
		if state == "" {
			state = "started"
		}
	default:
		if delay == 0 && timeout > 0 {
			delay = timeout
		}
		check, state, what = "true", "present", "time"
	}
	switch state {
	case "present", "started":
	case "absent", "stopped":
		check = "! { " + check + "; }"
	default:
		return Failure(fmt.Sprintf("wait_for: unsupported state %q", state)), nil
	}
	script := fmt.Sprintf(`sleep %d
end=$(( $(date +%%s) + %d ))
while :; do
  if %s; then exit 0; fi
  [ "$(date +%%s)" -ge "$end" ] && exit 3
  sleep %s
done`, delay, timeout, check, quote(sleep))
	start := time.Now()
	out, err := m.runPlain(ctx, script)
	if err != nil {
		return nil, err
	}
	elapsed := int(time.Since(start).Seconds())
	switch out.rc {
	case 0:
		return map[string]any{"changed": false, "elapsed": elapsed, "state": state}, nil
	case 3:
		return map[string]any{"changed": false, "failed": true, "elapsed": elapsed,
			"msg": fmt.Sprintf("Timeout when waiting for %s (%s)", what, state)}, nil
	}
	return commandFailure("wait_for", out), nil
}

// portProbe tries a TCP connection from the host with what it has: bash's /dev/tcp, nc, or, for
// a local address, a listening socket in /proc/net/tcp{,6}.
func portProbe(host, port string) string {
	n, _ := strconv.Atoi(port)
	hexPort := fmt.Sprintf("%04X", n)
	var b strings.Builder
	fmt.Fprintf(&b, "{ { command -v bash >/dev/null 2>&1 && timeout 2 bash -c 'exec 3<>/dev/tcp/%s/%s' 2>/dev/null; }", host, port)
	fmt.Fprintf(&b, " || { command -v nc >/dev/null 2>&1 && nc -z -w 2 %s %s 2>/dev/null; }", quote(host), port)
	switch host {
	case "127.0.0.1", "localhost", "0.0.0.0", "::1", "::":
		fmt.Fprintf(&b, " || grep -qE '^ *[0-9]+: [0-9A-F]+:%s [0-9A-F]+:[0-9A-F]+ 0A' /proc/net/tcp /proc/net/tcp6 2>/dev/null", hexPort)
	}
	b.WriteString("; }")
	return b.String()
}
