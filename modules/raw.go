package modules

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// modRaw runs the command as it is, without the task's environment (Ansible warns and ignores
// it), through executable -c when given; changed always, skipped in check mode, as Ansible's
// raw action.
func modRaw(ctx context.Context, m *Task, args map[string]any) (Result, error) {
	if m.Check {
		return Result{"changed": false, "skipped": true}, nil
	}
	cmd := ArgStr(args, "_raw_params")
	if sh := ArgStr(args, "executable"); sh != "" {
		cmd = sh + " -c " + quote(cmd)
	}
	bare := *m
	bare.Env = nil
	out, err := bare.runFenced(ctx, cmd, nil)
	if err != nil {
		return nil, err
	}
	return out.result(true), nil
}

// modScript sends a local script (found in files/ as copy finds its src) to the host and runs
// it with its arguments, as Ansible's script action: creates and removes skip it, chdir must
// be absolute, check mode skips it unless creates or removes is given (then it is changed).
func modScript(ctx context.Context, m *Task, args map[string]any) (Result, error) {
	if res, done, err := scriptSkips(ctx, m, args); done || err != nil {
		return res, err
	}
	words, err := shellword.Split(strings.TrimSpace(ArgStr(args, "_raw_params")))
	if err != nil || len(words) == 0 {
		return Failure(fmt.Sprintf("script: cannot read the command %q", ArgStr(args, "_raw_params"))), nil
	}
	src, err := m.localFile(words[0], "files")
	if err != nil {
		return Failure("script: " + err.Error()), nil
	}
	if m.Check {
		if ArgStr(args, "creates") != "" || ArgStr(args, "removes") != "" {
			return Result{"changed": true}, nil
		}
		return Result{"changed": false, "skipped": true, "msg": "Check mode is not supported for this task."}, nil
	}
	f, err := os.Open(src)
	if err != nil {
		return Failure("script: " + err.Error()), nil
	}
	defer f.Close()
	tmp := "/tmp/.kupgrade-" + rand.Text() + "-" + path.Base(src)
	if err := m.Conn.Upload(ctx, f, tmp, 0o755); err != nil {
		return uploadFailure(ctx, err, m)
	}
	return runScript(ctx, m, args, strings.Replace(strings.TrimSpace(ArgStr(args, "_raw_params")), words[0], tmp, 1), tmp)
}

func runScript(ctx context.Context, m *Task, args map[string]any, command, tmp string) (Result, error) {
	if sh := ArgStr(args, "executable"); sh != "" {
		command = sh + " " + command
	}
	if d := ArgStr(args, "chdir"); d != "" {
		command = "cd " + quote(d) + " && " + command
	}
	// in a subshell: a command line that exits (hello.sh; exit 3) still removes the script
	out, err := m.runFenced(ctx, "(\n"+command+"\n)\nrc=$?; rm -f -- "+quote(tmp)+"; exit $rc", nil)
	if err != nil {
		return nil, err
	}
	return out.result(true), nil
}

// scriptSkips applies chdir's rule and creates/removes, which are looked at on the host.
func scriptSkips(ctx context.Context, m *Task, args map[string]any) (Result, bool, error) {
	if d := ArgStr(args, "chdir"); d != "" && !strings.HasPrefix(d, "/") {
		return Failure(fmt.Sprintf("chdir %s must be an absolute path for a Unix-aware remote node", d)), true, nil
	}
	for _, c := range []struct {
		key, msg string
		want     bool
	}{{"creates", "%s exists, matching creates option", true}, {"removes", "%s does not exist, matching removes option", false}} {
		p := ArgStr(args, c.key)
		if p == "" {
			continue
		}
		out, err := m.runPlain(ctx, "[ -e "+quote(p)+" ]")
		if err != nil {
			return nil, true, err
		}
		if (out.rc == 0) == c.want {
			return Result{"changed": false, "skipped": true, "msg": fmt.Sprintf(c.msg, p)}, true, nil
		}
	}
	return nil, false, nil
}
