package modules

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// keepOrDefaultMode gives the new file "$t" the mode and owner of the file "$r" it replaces, or
// 0666 less the umask when there is none, as Ansible's atomic_move.
const keepOrDefaultMode = `if [ -e "$r" ]; then chmod --reference="$r" "$t"; chown --reference="$r" "$t" 2>/dev/null
else chmod "$(printf %o $((0666 & ~0$(umask))))" "$t"; fi
`

// modGetURL downloads url to dest ON THE HOST, in one command: a dest whose checksum already
// matches is left alone without a download; without checksum or force the request carries
// If-Modified-Since and a body identical to dest (sha1, as Ansible compares) changes nothing.
func modGetURL(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	u, dest := ArgStr(args, "url"), ArgStr(args, "dest")
	alg, sum, bad := parseChecksum(ArgStr(args, "checksum"))
	if bad != "" {
		return Failure(bad), nil
	}
	attrs, err := readAttrArgs(args)
	if err != nil {
		return Failure("get_url: " + err.Error()), nil
	}
	req, bad := requestArgs(args, "GET", 10)
	if bad != "" {
		return Failure(bad), nil
	}
	req.follow = true
	force := argBool(args, "force", false)
	req.ifModified = !force
	name := urlFilename(u)
	var b strings.Builder
	fmt.Fprintf(&b, `d=%s; force=%t; sum=%s; dry=%t; c=0; got=false; o=
if [ -d "$d" ]; then d="${d%%/}/"%s; fi
echo "kupgrade:dest=$d"
if [ -f "$d" ] && [ -n "$sum" ] && ! $force; then
  x=$(%ssum < "$d") || exit 1
  if [ "${x%%%% *}" = "$sum" ]; then got=true; echo "kupgrade:msg=file already exists"; else force=true; fi
fi
if ! $got && $dry; then c=1
elif ! $got; then
  n=$(dirname -- "$d"); [ -d "$n" ] || { echo "Destination $n does not exist" >&2; exit 1; }
  t=$(mktemp "$n/.kupgrade.XXXXXX") || exit 1; h=$t.h; trap 'rm -f -- "$t" "$h" "$h.err"' EXIT
`, hostPath(dest), force, quote(sum), m.Check, quote(name), alg)
	b.WriteString(fetchScript(req))
	fmt.Fprintf(&b, `  s=${w%%%% *}; echo "kupgrade:status=$s"
  if [ "$s" = 304 ]; then echo "kupgrade:msg=HTTP Error 304: Not Modified"
  elif [ "$s" != 200 ]; then echo "kupgrade:err=$(head -c 300 "$h.err" 2>/dev/null | tr '\n' ' ')"; exit 0
  else
    x=$(sha1sum < "$t"); echo "kupgrade:checksum_src=${x%%%% *}"
    l=$(sed -n 's/^ *[Cc]ontent-[Ll]ength: *\([0-9]*\).*/\1/p' "$h" | tail -n 1); echo "kupgrade:msg=OK (${l:-unknown} bytes)"
    if [ -f "$d" ]; then o=$(sha1sum < "$d"); echo "kupgrade:checksum_dest=${o%%%% *}"; fi
    if [ "${x%%%% *}" != "${o%%%% *}" ]; then
      %s
      r=$d
%s      mv -f -- "$t" "$d" || exit 1; c=1
    fi
    if [ -n "$sum" ]; then x=$(%ssum < "$d"); if [ "${x%%%% *}" != "$sum" ]; then rm -f -- "$d"; echo "The checksum for $d did not match $sum; it was ${x%%%% *}." >&2; exit 1; fi; fi
  fi
fi
p=$d
`, backupLine(argBool(args, "backup", false)), keepOrDefaultMode, alg)
	b.WriteString(attrs.script("c"))
	b.WriteString(`if [ -f "$d" ]; then x=$(md5sum < "$d"); echo "kupgrade:md5sum=${x%% *}"; stat -c 'kupgrade:stat=%a %s %U %G' -- "$d"; fi
echo "kupgrade:changed=$c"`)
	out, err := m.runWithEnv(ctx, b.String(), nil)
	if err != nil {
		return nil, err
	}
	return getURLResult(u, out), nil
}

func backupLine(on bool) string {
	if !on {
		return ":"
	}
	return `if [ -f "$d" ]; then k="$d.$$.$(date +%Y-%m-%d@%H:%M:%S~)"; cp -p -- "$d" "$k" || exit 1; echo "kupgrade:backup_file=$k"; fi`
}

// markedLines reads the script's kupgrade:KEY=VALUE lines.
func markedLines(stdout string) map[string]string {
	kv := map[string]string{}
	for l := range strings.SplitSeq(stdout, "\n") {
		if rest, ok := strings.CutPrefix(l, "kupgrade:"); ok {
			k, v, _ := strings.Cut(rest, "=")
			kv[k] = v
		}
	}
	return kv
}

func getURLResult(u string, out cmdOut) map[string]any {
	kv := markedLines(out.stdout)
	res := map[string]any{"changed": kv["changed"] == "1", "url": u, "dest": kv["dest"], "msg": kv["msg"], "elapsed": 0,
		"checksum_src": nil, "checksum_dest": nil}
	if out.rc != 0 {
		r := commandFailure("get_url "+u, out)
		r["msg"], r["url"], r["dest"] = strings.TrimSpace(out.stderr), u, kv["dest"]
		return r
	}
	for _, k := range []string{"checksum_src", "checksum_dest", "md5sum", "backup_file"} {
		if v, ok := kv[k]; ok {
			res[k] = v
		}
	}
	if s, ok := kv["status"]; ok {
		code, _ := strconv.Atoi(s)
		res["status_code"] = code
		if code == 0 {
			res["failed"], res["msg"] = true, "Request failed: "+strings.TrimSpace(kv["err"])
		} else if code != 200 && code != 304 {
			res["failed"], res["msg"], res["response"] = true, "Request failed", fmt.Sprintf("HTTP Error %d", code)
		}
	}
	if f := strings.Fields(kv["stat"]); len(f) == 4 {
		size, _ := strconv.ParseInt(f[1], 10, 64)
		res["mode"], res["size"], res["owner"], res["group"], res["state"] = fmt.Sprintf("%04s", f[0]), size, f[2], f[3], "file"
	}
	return res
}

var hexOnly = regexp.MustCompile(`\W+`)

// parseChecksum reads get_url's checksum "ALGORITHM:HEX" into the host's ALGORITHMsum tool.
func parseChecksum(s string) (alg, sum, bad string) {
	if s == "" {
		return "sha256", "", ""
	}
	alg, sum, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", "The checksum parameter has to be in format <algorithm>:<checksum>"
	}
	if strings.Contains(sum, "://") {
		return "", "", "get_url: a checksum read from a URL is not supported by kupgrade; give the hex digest"
	}
	sum = strings.ToLower(hexOnly.ReplaceAllString(sum, ""))
	if !isHex(sum) {
		return "", "", "The checksum format is invalid"
	}
	switch alg {
	case "sha1", "sha224", "sha256", "sha384", "sha512", "md5":
		return alg, sum, ""
	}
	return "", "", fmt.Sprintf("get_url: checksum algorithm %q is not supported by kupgrade (md5, sha1, sha224, sha256, sha384, sha512)", alg)
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return s != ""
}

// urlFilename is the last segment of the URL's path, as Ansible's url_filename ("index.html"
// when there is none).
func urlFilename(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "index.html"
	}
	if name := path.Base(p.Path); name != "/" && name != "." && name != "" {
		return name
	}
	return "index.html"
}

// requestArgs reads the arguments get_url and uri share.
func requestArgs(args map[string]any, method string, timeout int) (httpReq, string) {
	r := httpReq{method: method, url: ArgStr(args, "url"), headers: map[string]string{}, timeout: timeout,
		validateCerts: argBool(args, "validate_certs", true), user: ArgStr(args, "url_username"), password: ArgStr(args, "url_password")}
	if t := ArgStr(args, "timeout"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil {
			return r, fmt.Sprintf("timeout: %q is not a whole number of seconds", t)
		}
		r.timeout = n
	}
	if h, ok := args["headers"].(map[string]any); ok {
		for k, v := range h {
			r.headers[k] = fmt.Sprint(v)
		}
	} else if args["headers"] != nil {
		return r, "headers must be a mapping"
	}
	if !strings.Contains(r.url, "://") {
		return r, fmt.Sprintf("url %q has no scheme (http://, https://)", r.url)
	}
	return r, ""
}
