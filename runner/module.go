package runner

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

// module runs one task on one host. A module reports its own failures in the result (failed,
// msg); a returned error means it could not finish talking to the host (connection lost,
// context done) and the engine classifies it.
type module func(ctx context.Context, m *modCtx, args map[string]any) (map[string]any, error)

var modules map[string]module

func init() {
	modules = map[string]module{
		"command":  modCommand,
		"shell":    modShell,
		"copy":     modCopy,
		"template": modTemplate,
		"fetch":    modFetch,
		"stat":     modStat,
		"slurp":    modSlurp,
		"file":     modFile,
		"wait_for": modWaitFor,
		"debug":    modDebug,
		"set_fact": modSetFact,
		"fail":     modFail,
		"assert":   modAssert,
		"setup":    modSetup,
		"ping":     modPing,

		"lineinfile":  modLineInFile,
		"blockinfile": modBlockInFile,
		"replace":     modReplace,

		"service":         modService,
		"systemd":         modSystemd,
		"systemd_service": modSystemd,

		"get_url": modGetURL,
		"uri":     modURI,
		"apt":     modApt,
		"package": modPackage,

		"unarchive": modUnarchive,
	}
}

// modCtx is what a module knows of its host and task.
type modCtx struct {
	e          *playExec
	h          *hostState
	conn       *trackedConn
	become     bool
	becomeUser string
	env        map[string]string
	check      bool
	noLog      bool
	fence      *Fence // the play's fence when this task's commands run as root
	taskName   string // the task's name as written (not rendered): the fence's stamp names it
	roleDir    string // the role the task comes from: copy and template look in it first
}

func (e *playExec) modCtx(h *hostState, t *ctask) *modCtx {
	m := &modCtx{e: e, h: h, conn: h.conn, env: t.env, check: e.po.Check, noLog: t.noLog, roleDir: t.roleDir, taskName: t.name}
	if t.checkMode != nil {
		m.check = *t.checkMode
	}
	m.become = h.host.Become()
	if t.become != nil {
		m.become = *t.become
	}
	m.becomeUser = h.host.BecomeUser()
	if t.becomeUser != "" {
		m.becomeUser = t.becomeUser
	}
	if e.po.Fence != nil && m.runsAsRoot() {
		m.fence = e.po.Fence
	}
	return m
}

type cmdOut struct {
	rc             int
	stdout, stderr string
}

// run sends one script to the host, wrapped with the task's environment and become.
func (m *modCtx) run(ctx context.Context, script string, stdin io.Reader) (cmdOut, error) {
	return m.send(ctx, wrap(script, m.env, m.become, m.becomeUser), stdin)
}

// send sends one command line, wrapped already, to the host.
func (m *modCtx) send(ctx context.Context, cmd string, stdin io.Reader) (cmdOut, error) {
	var so, se bytes.Buffer
	rc, err := m.conn.Run(ctx, cmd, stdin, &so, &se)
	return cmdOut{rc, strings.TrimRight(so.String(), "\n"), strings.TrimRight(se.String(), "\n")}, err
}

// runFenced is run for the command and shell modules: under the play's fence when the task has
// one, stamped with the task's name and the script's digest (never its text: it may hold a
// secret). A refusal of the fence is returned as an error wrapping ErrFenced: the command did
// not run.
func (m *modCtx) runFenced(ctx context.Context, script string, stdin io.Reader) (cmdOut, error) {
	if m.fence == nil {
		return m.run(ctx, script, stdin)
	}
	out, err := m.send(ctx, withBecome(m.fence.command(withEnv(script, m.env), fencefile.Label(m.taskName, script)), m.become, m.becomeUser), stdin)
	if err == nil {
		if refused, ok := fenceRefusal(out); ok {
			return out, refused
		}
	}
	return out, err
}

// runPlain is run without the task's environment: for the modules' own probes.
func (m *modCtx) runPlain(ctx context.Context, script string) (cmdOut, error) {
	var so, se bytes.Buffer
	rc, err := m.conn.Run(ctx, wrap(script, nil, m.become, m.becomeUser), nil, &so, &se)
	return cmdOut{rc, so.String(), strings.TrimRight(se.String(), "\n")}, err
}

func (o cmdOut) result(changed bool) map[string]any {
	res := map[string]any{
		"rc": o.rc, "stdout": o.stdout, "stderr": o.stderr,
		"stdout_lines": lines(o.stdout), "stderr_lines": lines(o.stderr),
		"changed": changed, "failed": o.rc != 0,
	}
	if o.rc != 0 {
		res["msg"] = nonZeroRC
	}
	return res
}

// nonZeroRC is the msg of a command that exited non-zero, Ansible's words.
const nonZeroRC = "non-zero return code"

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

// argStr reads an argument as text: strings as they are, numbers and booleans formatted.
func argStr(args map[string]any, key string) string {
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
