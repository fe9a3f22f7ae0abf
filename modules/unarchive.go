package modules

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strings"
)

// modUnarchive unpacks a tar (any compression GNU tar reads) or zip archive into dest on the
// host. src is a file beside the playbook (files/), uploaded first, or with remote_src a path or
// URL on the host. The archive is unpacked into a temporary folder and compared with dest (each
// file's content and mode); only when something differs is it copied into dest, so a second run
// changes nothing. In check mode the comparison is made and nothing is copied.
func modUnarchive(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	src, dest := ArgStr(args, "src"), ArgStr(args, "dest")
	attrs, err := readAttrArgs(args)
	if err != nil {
		return Failure("unarchive: " + err.Error()), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "dest=%s; dry=%t; c=0\n", hostPath(dest), m.Check)
	if p := ArgStr(args, "creates"); p != "" {
		fmt.Fprintf(&b, "if [ -e %s ]; then echo kupgrade:skip; exit 0; fi\n", hostPath(p))
	}
	b.WriteString(`[ -d "$dest" ] || { echo "Destination '$dest' is not a directory" >&2; exit 1; }
x=$(mktemp -d) || exit 1; t=$x.archive; h=$t.h; trap 'rm -rf -- "$x" "$t" "$h" "$h.err"' EXIT
`)
	remote := argBool(args, "remote_src", false)
	if _, old := args["copy"]; old {
		remote = !argBool(args, "copy", true) // copy: false, the older spelling of remote_src: true
	}
	switch {
	case remote && strings.Contains(src, "://"):
		req, bad := requestArgs(map[string]any{"url": src, "validate_certs": args["validate_certs"]}, "GET", 10)
		if bad != "" {
			return Failure(bad), nil
		}
		req.follow = true
		b.WriteString(fetchScript(req))
		b.WriteString(`[ "${w%% *}" = 200 ] || { echo "Failure downloading ` + strings.ReplaceAll(src, "'", "") + `: status ${w%% *} $(cat "$h.err" 2>/dev/null)" >&2; exit 1; }` + "\n")
	case remote:
		fmt.Fprintf(&b, "s=%s; [ -e \"$s\" ] || { echo \"Source '$s' does not exist\" >&2; exit 1; }; cp -- \"$s\" \"$t\" || exit 1\n", hostPath(src))
	default:
		up, fail, err := uploadArchive(ctx, m, src)
		if err != nil || fail != nil {
			return fail, err
		}
		fmt.Fprintf(&b, "mv -f -- %s \"$t\" 2>/dev/null || cp -- %s \"$t\" || exit 1; rm -f -- %s\n", quote(up), quote(up), quote(up))
	}
	b.WriteString(unpackScript(args, attrs))
	out, err := m.runWithEnv(ctx, b.String(), nil)
	if err != nil {
		return nil, err
	}
	return unarchiveResult(src, dest, out, argBool(args, "list_files", false)), nil
}

// uploadArchive copies the controller's archive to a temporary name on the host.
func uploadArchive(ctx context.Context, m *Task, src string) (string, map[string]any, error) {
	p, err := m.localFile(src, "files")
	if err != nil {
		return "", Failure("unarchive: " + err.Error()), nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", Failure("unarchive: " + err.Error()), nil
	}
	tmp := "/tmp/.kupgrade-" + rand.Text()
	if err := m.Conn.Upload(ctx, bytes.NewReader(data), tmp, 0o644); err != nil {
		r, e := uploadFailure(ctx, err, m)
		return "", r, e
	}
	return tmp, nil, nil
}

// unpackScript unpacks "$t" into "$x", compares with "$dest" and copies when they differ.
func unpackScript(args map[string]any, attrs attrArgs) string {
	extra := ""
	if l, ok := args["extra_opts"].([]any); ok {
		for _, o := range l {
			extra += " " + quote(fmt.Sprint(o))
		}
	}
	for _, e := range listArg(args["exclude"]) {
		extra += " " + quote("--exclude="+e)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `set -f; IFS='
'
if command -v unzip >/dev/null && unzip -Z1 "$t" >/dev/null 2>&1; then k=ZipArchive; set -- unzip -q -o%s "$t" -d "$x"
elif tar -tf "$t" >/dev/null 2>&1; then k=TgzArchive; set -- tar -C "$x" -xf "$t"%s
else echo "Failed to find handler for \"$t\". Make sure the required command to extract the file is installed (tar, unzip)." >&2; exit 1; fi
echo "kupgrade:handler=$k"; echo "kupgrade:cmd=$*"
e=$("$@" 2>&1) || { echo "$e" >&2; echo "Failed to unpack the archive: $*" >&2; exit 1; }
cd "$x" || exit 1
for f in $(find . -mindepth 1 | sed 's|^\./||'); do
  echo "kupgrade:file=$f"
  if [ -d "$f" ] && [ ! -h "$f" ]; then [ -d "$dest/$f" ] || c=1
  elif [ -h "$f" ]; then [ "$(readlink -- "$f")" = "$(readlink -- "$dest/$f" 2>/dev/null)" ] || c=1
  elif ! cmp -s -- "$f" "$dest/$f" || [ "$(stat -c %%a -- "$f")" != "$(stat -c %%a -- "$dest/$f")" ]; then c=1; fi
done
if [ $c = 1 ] && ! $dry; then cp -a -- . "$dest/" || exit 1; fi
`, extra, extra)
	if attrs.any() {
		b.WriteString("for f in $(find . -mindepth 1 | sed 's|^\\./||'); do p=$dest/$f\n")
		b.WriteString(attrs.script("c"))
		b.WriteString("done\n")
	}
	b.WriteString(`echo "kupgrade:changed=$c"`)
	return b.String()
}

func listArg(v any) []string {
	switch x := v.(type) {
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = fmt.Sprint(e)
		}
		return out
	case string:
		if x != "" {
			return []string{x}
		}
	}
	return nil
}

func unarchiveResult(src, dest string, out cmdOut, listFiles bool) map[string]any {
	kv := markedLines(out.stdout)
	if strings.TrimSpace(out.stdout) == "kupgrade:skip" {
		return map[string]any{"changed": false, "skipped": true, "msg": "skipped, since the file named by creates exists"}
	}
	if out.rc != 0 {
		r := commandFailure("unarchive "+src, out)
		r["msg"] = LastLine(out.stderr)
		r["dest"], r["src"] = dest, src
		if kv["cmd"] != "" {
			r["extract_results"] = map[string]any{"cmd": kv["cmd"], "rc": 1, "err": strings.TrimSpace(out.stderr), "out": ""}
		}
		return r
	}
	res := map[string]any{"changed": kv["changed"] == "1", "dest": dest, "src": src, "handler": kv["handler"],
		"extract_results": map[string]any{"cmd": kv["cmd"], "rc": 0, "out": "", "err": ""}}
	if listFiles {
		var files []any
		for l := range strings.SplitSeq(out.stdout, "\n") {
			if f, ok := strings.CutPrefix(l, "kupgrade:file="); ok {
				files = append(files, f)
			}
		}
		res["files"] = files
	}
	return res
}
