package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// skipMark is what the creates/removes guard prints when the command must not run: the check
// and the command travel in one remote command.
const skipMark = "kupgrade:skip:guard"

func modCommand(ctx context.Context, m *modCtx, args map[string]any) (map[string]any, error) {
	var argv []string
	if l, ok := args["argv"].([]any); ok {
		for _, a := range l {
			argv = append(argv, fmt.Sprint(a))
		}
	} else {
		raw := argStr(args, "_raw_params")
		if raw == "" {
			raw = argStr(args, "cmd")
		}
		var err error
		if argv, err = shellword.Split(raw); err != nil {
			return failure(fmt.Sprintf("command: %v in %q", err, raw)), nil
		}
	}
	if len(argv) == 0 {
		return failure("command: no command given"), nil
	}
	return runCommand(ctx, m, args, "exec "+shellword.Join(argv), commandLabel(argv))
}

func modShell(ctx context.Context, m *modCtx, args map[string]any) (map[string]any, error) {
	script := argStr(args, "_raw_params")
	if script == "" {
		script = argStr(args, "cmd")
	}
	if script == "" {
		return failure("shell: no command given"), nil
	}
	if ex := argStr(args, "executable"); ex != "" {
		script = quote(ex) + " -c " + quote(script)
	}
	return runCommand(ctx, m, args, script, stampLabel(script))
}

// runCommand adds chdir and the creates/removes guard to a command and runs it, under the play's
// fence when it has one (label names the command in the fence's stamp). In check mode the
// command is skipped (the engine only calls it there when check_mode: false is not set).
func runCommand(ctx context.Context, m *modCtx, args map[string]any, script, label string) (map[string]any, error) {
	if m.check {
		return map[string]any{"changed": false, "skipped": true, "msg": "skipped in check mode"}, nil
	}
	var b strings.Builder
	if p := argStr(args, "creates"); p != "" {
		fmt.Fprintf(&b, "if [ -e %s ]; then echo %s; exit 0; fi\n", quote(p), skipMark)
	}
	if p := argStr(args, "removes"); p != "" {
		fmt.Fprintf(&b, "if [ ! -e %s ]; then echo %s; exit 0; fi\n", quote(p), skipMark)
	}
	if d := argStr(args, "chdir"); d != "" {
		fmt.Fprintf(&b, "cd %s || exit 1\n", quote(d))
	}
	if b.Len() > 0 {
		b.WriteString(script)
		script = b.String()
	}
	var stdin *strings.Reader
	if s, ok := args["stdin"]; ok {
		in := fmt.Sprint(s)
		if argBool(args, "stdin_add_newline", true) {
			in += "\n"
		}
		stdin = strings.NewReader(in)
	}
	var out cmdOut
	var err error
	if stdin != nil {
		out, err = m.runFenced(ctx, script, label, stdin)
	} else {
		out, err = m.runFenced(ctx, script, label, nil)
	}
	if err != nil {
		return nil, err
	}
	if out.rc == 0 && out.stdout == skipMark {
		return map[string]any{"changed": false, "rc": 0, "stdout": "", "stderr": "", "stdout_lines": []any{},
			"stderr_lines": []any{}, "msg": "skipped: creates/removes says the command has run"}, nil
	}
	return out.result(true), nil
}

func modPing(ctx context.Context, m *modCtx, _ map[string]any) (map[string]any, error) {
	out, err := m.runPlain(ctx, "echo pong")
	if err != nil {
		return nil, err
	}
	if out.rc != 0 {
		return out.result(false), nil
	}
	return map[string]any{"changed": false, "ping": "pong"}, nil
}
