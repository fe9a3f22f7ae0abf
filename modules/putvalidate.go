package modules

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io/fs"
	"strings"
)

// fileAttrs are the mode and owner copy and template give the file they write.
type fileAttrs struct {
	mode         fs.FileMode
	owner, group string
}

// installViaTmp is copy's and template's write when the login user may not write dest (become)
// or the content must pass a validate command first: the data goes to a file beside /tmp, the
// validate command (%s is that file) runs on it as Ansible's copy runs it on its temporary
// file, and only then does install put it at dest with its mode and owner, under become when
// the task has it. A failed validation leaves dest alone and says "failed to validate" with the
// command's exit_status, stdout and stderr, as Ansible's copy does.
func installViaTmp(ctx context.Context, m *Task, data []byte, dest string, a fileAttrs, validate string, res map[string]any) (map[string]any, error) {
	if validate != "" && !strings.Contains(validate, "%s") {
		return Failure("validate must contain %s: " + validate), nil
	}
	tmp := "/tmp/.kupgrade-" + rand.Text()
	if err := m.Conn.Upload(ctx, bytes.NewReader(data), tmp, 0o600); err != nil {
		return uploadFailure(ctx, err, m)
	}
	if validate != "" {
		script := strings.ReplaceAll(validate, "%s", quote(tmp)) + "; rc=$?; [ $rc = 0 ] || rm -f " + quote(tmp) + "; exit $rc"
		out, err := m.runPlain(ctx, script)
		if err != nil {
			return nil, err
		}
		if out.rc != 0 {
			return map[string]any{"failed": true, "msg": "failed to validate", "exit_status": out.rc,
				"stdout": out.stdout, "stderr": out.stderr}, nil
		}
	}
	cmd := "install -m " + fmt.Sprintf("%04o", a.mode)
	if a.owner != "" {
		cmd += " -o " + quote(a.owner)
	}
	if a.group != "" {
		cmd += " -g " + quote(a.group)
	}
	cmd += " " + quote(tmp) + " " + quote(dest) + "; rc=$?; rm -f " + quote(tmp) + "; exit $rc"
	out, err := m.runPlain(ctx, cmd)
	if err != nil {
		return nil, err
	}
	if out.rc != 0 {
		return commandFailure("install "+dest, out), nil
	}
	return res, nil
}
