package modules

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func modStat(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	p := ArgStr(args, "path")
	if p == "" {
		return Failure("stat: path is required"), nil
	}
	flag := ""
	if argBool(args, "follow", false) {
		flag = "-L "
	}
	script := "p=" + quote(p) + "\n" +
		`if [ -e "$p" ] || [ -h "$p" ]; then stat ` + flag + `-c '%s|%a|%Y|%u|%g|%U|%G|%F' "$p" || exit 1; `
	if argBool(args, "get_checksum", true) {
		script += `if [ -f "$p" ]; then s=$(sha256sum "$p" 2>/dev/null) && echo "${s%% *}"; fi; `
	}
	script += "else echo missing; fi"
	out, err := m.runPlain(ctx, script)
	if err != nil {
		return nil, err
	}
	if out.rc != 0 {
		return commandFailure("stat "+p, out), nil
	}
	st, err := parseStat(p, out.stdout)
	if err != nil {
		return Failure(err.Error()), nil
	}
	return map[string]any{"changed": false, "stat": st}, nil
}

func parseStat(p, out string) (map[string]any, error) {
	first, rest, _ := strings.Cut(strings.TrimSpace(out), "\n")
	if first == "missing" {
		return map[string]any{"exists": false, "path": p}, nil
	}
	f := strings.Split(first, "|")
	if len(f) != 8 {
		return nil, fmt.Errorf("stat %s: unexpected output %q", p, first)
	}
	size, _ := strconv.ParseInt(f[0], 10, 64)
	mtime, _ := strconv.ParseFloat(f[2], 64)
	uid, _ := strconv.Atoi(f[3])
	gid, _ := strconv.Atoi(f[4])
	mode := f[1]
	for len(mode) < 4 {
		mode = "0" + mode
	}
	st := map[string]any{
		"exists": true, "path": p, "size": size, "mode": mode, "mtime": mtime,
		"uid": uid, "gid": gid, "pw_name": f[5], "gr_name": f[6],
		"isdir": f[7] == "directory", "isreg": strings.HasPrefix(f[7], "regular"),
		"islnk": f[7] == "symbolic link",
	}
	if sum := strings.TrimSpace(rest); sum != "" {
		st["checksum"] = sum
	}
	return st, nil
}

func modSlurp(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	p := ArgStr(args, "src")
	if p == "" {
		p = ArgStr(args, "path")
	}
	out, err := m.runPlain(ctx, "base64 < "+quote(p))
	if err != nil {
		return nil, err
	}
	if out.rc != 0 {
		return commandFailure("read "+p, out), nil
	}
	content := strings.ReplaceAll(strings.TrimSpace(out.stdout), "\n", "")
	return map[string]any{"changed": false, "content": content, "encoding": "base64", "source": p}, nil
}

// modFetch copies a remote file to the controller: dest/HOST/PATH, or dest itself with flat.
// The remote checksum is read first and the transfer skipped when the local copy matches.
func modFetch(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	src, dest := ArgStr(args, "src"), ArgStr(args, "dest")
	if src == "" || dest == "" {
		return Failure("fetch: src and dest are required"), nil
	}
	local := filepath.Join(dest, m.Host, src)
	if argBool(args, "flat", false) {
		local = dest
		if strings.HasSuffix(dest, "/") {
			local = filepath.Join(dest, filepath.Base(src))
		}
	}
	out, err := m.runPlain(ctx, "p="+quote(src)+`; if [ -f "$p" ]; then s=$(sha256sum "$p") || exit 1; echo "${s%% *}"; else echo missing; fi`)
	if err != nil {
		return nil, err
	}
	if out.rc != 0 {
		return commandFailure("read "+src, out), nil
	}
	remote := strings.TrimSpace(out.stdout)
	res := map[string]any{"changed": false, "dest": local, "remote_checksum": remote}
	if remote == "missing" {
		if argBool(args, "fail_on_missing", true) {
			return Failure(fmt.Sprintf("the remote file %s does not exist", src)), nil
		}
		res["msg"] = "the remote file does not exist, not transferring, ignored"
		return res, nil
	}
	res["checksum"] = remote
	if localSHA(local) == remote {
		return res, nil
	}
	res["changed"] = true
	if m.Check {
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		return Failure("fetch: " + err.Error()), nil
	}
	f, err := os.CreateTemp(filepath.Dir(local), ".fetch-*")
	if err != nil {
		return Failure("fetch: " + err.Error()), nil
	}
	defer os.Remove(f.Name())
	h := sha256.New()
	w := io.MultiWriter(f, h)
	if m.Become {
		// sftp reads as the login user; sudo cat reads what root may.
		var se strings.Builder
		rc, err := m.Conn.Run(ctx, Wrap("cat "+quote(src), nil, true, m.BecomeUser), nil, w, &se)
		if err == nil && rc != 0 {
			err = fmt.Errorf("cat %s: exit %d: %s", src, rc, LastLine(se.String()))
		}
		if err != nil {
			f.Close()
			return downloadFailure(ctx, err, m)
		}
	} else if err := m.Conn.Download(ctx, src, w); err != nil {
		f.Close()
		return downloadFailure(ctx, err, m)
	}
	if err := f.Close(); err != nil {
		return Failure("fetch: " + err.Error()), nil
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != remote {
		return Failure(fmt.Sprintf("fetch %s: checksum mismatch (remote %s, received %s)", src, remote, got)), nil
	}
	if err := os.Rename(f.Name(), local); err != nil {
		return Failure("fetch: " + err.Error()), nil
	}
	return res, nil
}

func downloadFailure(ctx context.Context, err error, m *Task) (map[string]any, error) {
	if m.lost() || ctx.Err() != nil {
		return nil, err
	}
	return Failure("fetch: " + err.Error()), nil
}

func localSHA(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
