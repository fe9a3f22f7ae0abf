package modules

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/kupgrade/kupgrade/internal/fencefile"
	"io"
	"io/fs"
	"strconv"
	"strings"
)

type cmdOut struct {
	rc             int
	stdout, stderr string
}

// run sends one script to the host, wrapped with the task's environment and become.
func (m *Task) run(ctx context.Context, script string, stdin io.Reader) (cmdOut, error) {
	return m.send(ctx, Wrap(script, m.Env, m.Become, m.BecomeUser), stdin)
}

// send sends one command line, wrapped already, to the host.
func (m *Task) send(ctx context.Context, cmd string, stdin io.Reader) (cmdOut, error) {
	var so, se bytes.Buffer
	rc, err := m.Conn.Run(ctx, cmd, stdin, &so, &se)
	return cmdOut{rc, strings.TrimRight(so.String(), "\n"), strings.TrimRight(se.String(), "\n")}, err
}

// runFenced is run for the command and shell modules: under the task's fence when it has one,
// stamped with the task's name and the script's digest (never its text: it may hold a secret).
// A refusal of the fence is returned as the fence's error: the command did not run.
func (m *Task) runFenced(ctx context.Context, script string, stdin io.Reader) (cmdOut, error) {
	if m.Fence == nil {
		return m.run(ctx, script, stdin)
	}
	out, err := m.send(ctx, withBecome(m.Fence.Command(withEnv(script, m.Env), fencefile.Label(m.Name, script)), m.Become, m.BecomeUser), stdin)
	if err == nil {
		if refused := m.Fence.Refusal(out.rc, out.stderr); refused != nil {
			return out, refused
		}
	}
	return out, err
}

// runPlain is run without the task's environment: for the modules' own probes.
func (m *Task) runPlain(ctx context.Context, script string) (cmdOut, error) {
	var so, se bytes.Buffer
	rc, err := m.Conn.Run(ctx, Wrap(script, nil, m.Become, m.BecomeUser), nil, &so, &se)
	return cmdOut{rc, so.String(), strings.TrimRight(se.String(), "\n")}, err
}

// runRaw runs script with the task's environment and become and returns its output as the
// host printed it, final newlines kept: for messages Ansible builds from a command's raw output.
func (m *Task) runRaw(ctx context.Context, script string) (int, string, string, error) {
	var so, se bytes.Buffer
	rc, err := m.Conn.Run(ctx, Wrap(script, m.Env, m.Become, m.BecomeUser), nil, &so, &se)
	return rc, so.String(), se.String(), err
}

func (o cmdOut) result(changed bool) map[string]any {
	res := map[string]any{
		"rc": o.rc, "stdout": o.stdout, "stderr": o.stderr,
		"stdout_lines": lines(o.stdout), "stderr_lines": lines(o.stderr),
		"changed": changed, "failed": o.rc != 0,
	}
	if o.rc != 0 {
		res["msg"] = NonZeroRC
	}
	return res
}

// NonZeroRC is the msg of a command that exited non-zero, Ansible's words.
const NonZeroRC = "non-zero return code"

func lines(s string) []any {
	if s == "" {
		return []any{}
	}
	parts := strings.Split(s, "\n")
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}

// ArgStr reads an argument as text ("" when absent): strings as they are, numbers and booleans formatted.
func ArgStr(args map[string]any, key string) string {
	switch v := args[key].(type) {
	case nil:
		return ""
	case string:
		return v
	case int, int64, float64, bool:
		return fmt.Sprint(v)
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

func argBool(args map[string]any, key string, def bool) bool {
	switch v := args[key].(type) {
	case bool:
		return v
	case string:
		switch strings.ToLower(v) {
		case "yes", "true", "on", "1", "y":
			return true
		case "no", "false", "off", "0", "n":
			return false
		}
	case int:
		return v != 0
	}
	return def
}

// argMode reads a file mode: "0644", "644", 0o644 or, when YAML read 0644 as the decimal 644,
// that number (Ansible's own rule: a number whose digits are octal and above 0777 was meant as
// octal digits). ok is false when no mode was given; symbolic is set for modes like "u+x".
func argMode(args map[string]any, key string) (mode fs.FileMode, symbolic string, ok bool, err error) {
	switch v := args[key].(type) {
	case nil:
		return 0, "", false, nil
	case int:
		if s := strconv.Itoa(v); v > 0o777 && !strings.ContainsAny(s, "89") {
			n, _ := strconv.ParseUint(s, 8, 32)
			return fs.FileMode(n), "", true, nil
		}
		return fs.FileMode(v), "", true, nil
	case string:
		n, perr := strconv.ParseUint(strings.TrimPrefix(v, "0o"), 8, 32)
		if perr != nil {
			if strings.ContainsAny(v, "+-=") {
				return 0, v, true, nil
			}
			return 0, "", false, fmt.Errorf("%s: bad mode %q", key, v)
		}
		return fs.FileMode(n), "", true, nil
	}
	return 0, "", false, fmt.Errorf("%s: bad mode %v", key, args[key])
}

// modeText is the form stat -c %a prints.
func modeText(m fs.FileMode) string { return strconv.FormatUint(uint64(m), 8) }

// Failure is the result of a task that failed with msg and changed nothing.
func Failure(msg string) Result {
	return Result{"failed": true, "changed": false, "msg": msg}
}

func truth(v any) bool {
	b, _ := v.(bool)
	return b
}

// LastLine is the last line of s, its final newline aside: what a failed command's message
// quotes of its stderr.
func LastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
