package modules

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// skipMark is what the creates/removes guard prints when the command must not run: the check
// and the command travel in one remote command.
const skipMark = "kupgrade:skip:guard"

func modCommand(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	var argv []string
	if l, ok := args["argv"].([]any); ok {
		for _, a := range l {
			argv = append(argv, fmt.Sprint(a))
		}
	} else {
		raw := ArgStr(args, "_raw_params")
		if raw == "" {
			raw = ArgStr(args, "cmd")
		}
		var err error
		if argv, err = shellword.Split(raw); err != nil {
			return Failure(fmt.Sprintf("command: %v in %q", err, raw)), nil
		}
	}
	if len(argv) == 0 {
		return Failure("command: no command given"), nil
	}
	prelude, words := hostWords(argv)
	cmd := make([]any, len(argv))
	for i, a := range argv {
		cmd[i] = a
	}
	res, err := runCommand(ctx, m, args, prelude+"exec "+strings.Join(words, " "))
	return withCmd(res, err, cmd)
}

// withCmd adds to a command's result what Ansible's command and shell modules register besides
// the output: cmd (the argv of command, the script of shell) and msg ("" when the command
// succeeded, "non-zero return code" when not).
func withCmd(res map[string]any, err error, cmd any) (map[string]any, error) {
	if res != nil && err == nil && !truth(res["skipped"]) {
		res["cmd"] = cmd
		if _, ok := res["msg"]; !ok {
			res["msg"] = ""
		}
	}
	return res, err
}

// envRef is what Python's os.path.expandvars replaces: $NAME or ${NAME}.
var envRef = regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})`)

// hostWords are the command module's arguments as shell words that the host expands as
// Ansible's command module expands each argument (expandvars, then expanduser): $NAME and
// ${NAME} become the variable's value when it is set and stay as written when not; a leading
// ~ or ~/ becomes $HOME. Nothing else is expanded: no globs, no word splitting. prelude sets the
// variables the words use.
func hostWords(argv []string) (string, []string) {
	var prelude strings.Builder
	words := make([]string, len(argv))
	n := 0
	for i, a := range argv {
		if !strings.Contains(a, "$") && !strings.HasPrefix(a, "~") {
			words[i] = quote(a)
			continue
		}
		var b strings.Builder
		if a == "~" || strings.HasPrefix(a, "~/") {
			b.WriteString(`"$HOME"`)
			a = a[1:]
		}
		last := 0
		for _, loc := range envRef.FindAllStringIndex(a, -1) {
			b.WriteString(quote(a[last:loc[0]]))
			name := strings.Trim(a[loc[0]+1:loc[1]], "{}")
			fmt.Fprintf(&prelude, "if [ \"${%s+x}\" ]; then k%d=$%s; else k%d=%s; fi\n", name, n, name, n, quote(a[loc[0]:loc[1]]))
			fmt.Fprintf(&b, `"$k%d"`, n)
			n++
			last = loc[1]
		}
		if last < len(a) {
			b.WriteString(quote(a[last:]))
		}
		words[i] = b.String()
	}
	return prelude.String(), words
}

func modShell(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	script := ArgStr(args, "_raw_params")
	if script == "" {
		script = ArgStr(args, "cmd")
	}
	if script == "" {
		return Failure("shell: no command given"), nil
	}
	cmd := script
	if ex := ArgStr(args, "executable"); ex != "" {
		script = quote(ex) + " -c " + quote(script)
	}
	res, err := runCommand(ctx, m, args, script)
	return withCmd(res, err, cmd)
}

// runCommand adds chdir and the creates/removes guard to a command and runs it, under the play's
// fence when it has one. In check mode the command never runs (the engine only calls it there
// when check_mode: false is not set): without creates/removes it is skipped; with them, only
// the guard runs, and the command is changed (it would have run) or ok, as Ansible reports it.
func runCommand(ctx context.Context, m *Task, args map[string]any, script string) (map[string]any, error) {
	guard := commandGuard(args)
	if m.Check {
		return checkCommand(ctx, m, guard)
	}
	var b strings.Builder
	b.WriteString(guard)
	if d := ArgStr(args, "chdir"); d != "" {
		fmt.Fprintf(&b, "cd %s || exit 1\n", hostPath(d))
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
		out, err = m.runFenced(ctx, script, stdin)
	} else {
		out, err = m.runFenced(ctx, script, nil)
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

// commandGuard is the shell test of creates and removes: it prints skipMark and exits when the
// command must not run.
func commandGuard(args map[string]any) string {
	var b strings.Builder
	if p := ArgStr(args, "creates"); p != "" {
		fmt.Fprintf(&b, "if [ -e %s ]; then echo %s; exit 0; fi\n", hostPath(p), skipMark)
	}
	if p := ArgStr(args, "removes"); p != "" {
		fmt.Fprintf(&b, "if [ ! -e %s ]; then echo %s; exit 0; fi\n", hostPath(p), skipMark)
	}
	return b.String()
}

// checkCommand is a command in check mode: skipped without a guard, else the guard alone runs.
func checkCommand(ctx context.Context, m *Task, guard string) (map[string]any, error) {
	if guard == "" {
		return map[string]any{"changed": false, "skipped": true, "msg": "skipped in check mode"}, nil
	}
	out, err := m.runPlain(ctx, guard)
	if err != nil {
		return nil, err
	}
	if out.rc == 0 && strings.TrimSpace(out.stdout) == skipMark {
		return map[string]any{"changed": false, "rc": 0, "stdout": "", "stderr": "",
			"msg": "skipped: creates/removes says the command has run"}, nil
	}
	msg := "Command would have run if not in check mode"
	return map[string]any{"changed": true, "rc": 0, "stdout": msg, "stderr": "", "msg": msg}, nil
}

func modPing(ctx context.Context, m *Task, _ map[string]any) (map[string]any, error) {
	out, err := m.runPlain(ctx, "echo pong")
	if err != nil {
		return nil, err
	}
	if out.rc != 0 {
		return out.result(false), nil
	}
	return map[string]any{"changed": false, "ping": "pong"}, nil
}
