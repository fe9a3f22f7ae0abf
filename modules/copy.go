package modules

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/kupgrade/kupgrade/jinja"
)

// localFile finds a playbook-relative file as Ansible does: in a role's task, the role's
// sub/NAME and NAME; then sub/NAME (files/ or templates/) and NAME beside the playbook.
func (m *Task) localFile(name, sub string) (string, error) {
	if filepath.IsAbs(name) {
		return name, nil
	}
	var cands []string
	for _, dir := range []string{m.RoleDir, m.PlayDir} {
		if dir != "" {
			cands = append(cands, filepath.Join(dir, sub, name), filepath.Join(dir, name))
		}
	}
	for _, p := range cands {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("could not find %q in %s", name, strings.Join(cands, ", "))
}

func modCopy(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	var data []byte
	base, from := "", ""
	if src := ArgStr(args, "src"); src != "" {
		if argBool(args, "remote_src", false) {
			return Failure("copy: remote_src is not supported; use command: cp"), nil
		}
		p, err := m.localFile(src, "files")
		if err != nil {
			return Failure("copy: " + err.Error()), nil
		}
		if data, err = readDecrypted(p); err != nil {
			return Failure("copy: " + err.Error()), nil
		}
		base, from = filepath.Base(p), afterPath(p)
	} else if c, ok := args["content"]; ok {
		switch v := c.(type) {
		case string:
			data = []byte(v)
		default:
			b, err := json.Marshal(v)
			if err != nil {
				return Failure("copy: content: " + err.Error()), nil
			}
			data = b
		}
	} else {
		return Failure("copy: src or content is required"), nil
	}
	return putFile(ctx, m, args, data, base, from)
}

func modTemplate(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	src := ArgStr(args, "src")
	p, err := m.localFile(src, "templates")
	if err != nil {
		return Failure("template: " + err.Error()), nil
	}
	raw, err := readDecrypted(p)
	if err != nil {
		return Failure("template: " + err.Error()), nil
	}
	full, _ := filepath.Abs(p)
	out, err := jinja.RenderFile(string(raw), withTemplateVars(m.Vars, src, full, ArgStr(args, "dest")))
	if err != nil {
		return Failure(fmt.Sprintf("template %s: %v", src, err)), nil
	}
	return putFile(ctx, m, args, []byte(out), strings.TrimSuffix(filepath.Base(p), ".j2"), afterPath(p))
}

type remoteFile struct {
	path                    string
	exists                  bool
	sha, mode, owner, group string
}

// putFile is copy's and template's common end: one command to compare the destination's
// sha256, mode and owner; an upload only when the content differs; chmod/chown only when they do.
// from is the local file the data came from ("" for content), the after header of its diff.
func putFile(ctx context.Context, m *Task, args map[string]any, data []byte, base, from string) (map[string]any, error) {
	dest := ArgStr(args, "dest")
	if dest == "" {
		return Failure("dest is required"), nil
	}
	mode, symbolic, hasMode, err := argMode(args, "mode")
	if err != nil || symbolic != "" {
		return Failure(fmt.Sprintf("mode: give an octal mode (%v%s)", err, symbolic)), nil
	}
	owner, group := ArgStr(args, "owner"), ArgStr(args, "group")
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])
	rf, err := statForCopy(ctx, m, dest, base)
	if err != nil {
		return nil, err
	}
	if rf.path == "" {
		return Failure(fmt.Sprintf("cannot read %s on the host", dest)), nil
	}
	res := map[string]any{"dest": rf.path, "checksum": want, "size": len(data), "changed": false}
	sameData := rf.exists && rf.sha == want
	if rf.exists && !argBool(args, "force", true) {
		return res, nil // force: no leaves an existing file alone, as Ansible
	}
	fixMode := hasMode && rf.mode != modeText(mode)
	fixOwner := owner != "" && rf.owner != owner || group != "" && rf.group != group
	if m.Diff {
		if err := copyDiff(ctx, m, res, rf, data, from, mode, fixMode); err != nil {
			return nil, err
		}
	}
	if sameData && !fixMode && !fixOwner {
		return res, nil
	}
	res["changed"] = true
	if m.Check {
		return res, nil
	}
	if !hasMode {
		mode = 0o644
		if rf.exists {
			fmt.Sscanf(rf.mode, "%o", &mode)
		}
	}
	res["mode"] = fmt.Sprintf("%04o", mode)
	if sameData {
		return res, chattr(ctx, m, rf.path, mode, fixMode, owner, group)
	}
	validate := ArgStr(args, "validate")
	if !m.Become && validate == "" {
		if err := m.Conn.Upload(ctx, bytes.NewReader(data), rf.path, mode); err != nil {
			return uploadFailure(ctx, err, m)
		}
		if owner != "" || group != "" {
			return res, chattr(ctx, m, rf.path, mode, false, owner, group)
		}
		return res, nil
	}
	return installViaTmp(ctx, m, data, rf.path, fileAttrs{mode, owner, group}, validate, res)
}

func uploadFailure(ctx context.Context, err error, m *Task) (map[string]any, error) {
	if m.lost() || ctx.Err() != nil {
		return nil, err
	}
	return Failure("upload: " + err.Error()), nil
}

func commandFailure(what string, out cmdOut) map[string]any {
	r := out.result(false)
	r["msg"] = fmt.Sprintf("%s: exit %d: %s", what, out.rc, LastLine(out.stderr))
	return r
}

// chattr fixes mode and owner of an existing file.
func chattr(ctx context.Context, m *Task, p string, mode fs.FileMode, fixMode bool, owner, group string) error {
	var cmds []string
	if fixMode {
		cmds = append(cmds, "chmod "+modeText(mode)+" "+quote(p))
	}
	if owner != "" || group != "" {
		og := owner
		if group != "" {
			og += ":" + group
		}
		cmds = append(cmds, "chown "+quote(og)+" "+quote(p))
	}
	if len(cmds) == 0 {
		return nil
	}
	out, err := m.runPlain(ctx, strings.Join(cmds, " && "))
	if err != nil {
		return err
	}
	if out.rc != 0 {
		return fmt.Errorf("chmod/chown %s: exit %d: %s", p, out.rc, LastLine(out.stderr))
	}
	return nil
}

// statForCopy resolves dest (a folder takes the source's name) and reads its checksum, mode and
// owner, in one command.
func statForCopy(ctx context.Context, m *Task, dest, base string) (remoteFile, error) {
	script := "d=" + quote(dest) + "\n"
	if base != "" {
		script += `if [ -d "$d" ]; then d="${d%/}/"` + quote(base) + "; fi\n"
	} else if strings.HasSuffix(dest, "/") {
		return remoteFile{}, nil
	}
	script += `printf 'path %s\n' "$d"
if [ -f "$d" ]; then s=$(sha256sum "$d") || exit 1; printf 'sha %s\n' "${s%% *}"; stat -c 'meta %a %U %G' "$d"; fi
`
	out, err := m.runPlain(ctx, script)
	if err != nil {
		return remoteFile{}, err
	}
	var rf remoteFile
	if out.rc != 0 {
		return rf, nil
	}
	for l := range strings.SplitSeq(out.stdout, "\n") {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "path":
			rf.path = v
		case "sha":
			rf.sha, rf.exists = v, true
		case "meta":
			f := strings.Fields(v)
			if len(f) == 3 {
				rf.mode, rf.owner, rf.group = f[0], f[1], f[2]
			}
		}
	}
	if rf.path == "" {
		rf.path = path.Clean(dest)
	}
	return rf, nil
}
