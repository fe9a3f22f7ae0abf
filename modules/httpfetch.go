package modules

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// get_url and uri make their request ON THE HOST, as Ansible does (the controller may not reach
// what the host reaches): with curl, else python3, else wget (GET only). fetchScript is the shell
// that does it: the body goes to "$t", the response headers to "$h", and the shell variable w is
// set to "STATUS FINAL-URL" (status 0 when no answer came, with the reason in "$h.err").

// httpReq is one request.
type httpReq struct {
	method, url    string
	headers        map[string]string
	body           bool // the body comes on stdin
	timeout        int
	validateCerts  bool
	follow         bool
	user, password string
	ifModified     bool // send If-Modified-Since from "$d"'s mtime (get_url without force)
}

// pyFetch is the python3 fallback: urllib, as Ansible's own fetch_url.
const pyFetch = `import sys, json, ssl, os, urllib.request, urllib.error, email.utils, base64
m, url, out, hf, timeout, verify, follow, ims, hdrs = sys.argv[1:10]
h = json.loads(hdrs)
if ims and os.path.exists(ims):
    h['If-Modified-Since'] = email.utils.formatdate(os.path.getmtime(ims), usegmt=True)
data = sys.stdin.buffer.read() if m not in ('GET', 'HEAD') else None
req = urllib.request.Request(url, data=data, headers=h, method=m)
ctx = ssl.create_default_context()
if verify != '1':
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None
handlers = [urllib.request.HTTPSHandler(context=ctx)]
if follow != '1':
    handlers.append(NoRedirect())
try:
    r = urllib.request.build_opener(*handlers).open(req, timeout=int(timeout))
except urllib.error.HTTPError as e:
    r = e
except Exception as e:
    open(hf + '.err', 'w').write(str(e))
    print('0 ' + url)
    sys.exit(0)
with open(out, 'wb') as f:
    f.write(r.read())
with open(hf, 'w') as f:
    f.write('HTTP/1.1 %d %s\r\n' % (r.status, r.reason))
    for k, v in r.headers.items():
        f.write('%s: %s\r\n' % (k, v))
print('%d %s' % (r.status, r.geturl()))
`

// fetchScript makes the request; it expects "$t" and "$h" to name files, and "$d" when
// ifModified.
func fetchScript(r httpReq) string {
	var curl, wget []string
	keys := make([]string, 0, len(r.headers))
	for k := range r.headers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		curl = append(curl, "-H", quote(k+": "+r.headers[k]))
		wget = append(wget, quote("--header="+k+": "+r.headers[k]))
	}
	if !r.validateCerts {
		curl = append(curl, "-k")
		wget = append(wget, "--no-check-certificate")
	}
	if r.follow {
		curl = append(curl, "-L")
	} else {
		wget = append(wget, "--max-redirect=0")
	}
	if r.body {
		curl = append(curl, "--data-binary", "@-")
	} else if r.method == "HEAD" {
		curl = append(curl, "-I")
	}
	if r.user != "" {
		curl = append(curl, "-u", quote(r.user+":"+r.password))
		wget = append(wget, quote("--user="+r.user), quote("--password="+r.password))
	}
	hj, _ := json.Marshal(r.headers)
	if r.user != "" {
		hj, _ = json.Marshal(withBasicAuth(r.headers, r.user, r.password))
	}
	ims, imsPy := "", "''"
	if r.ifModified {
		ims = `if [ -f "$d" ]; then set -- -z "$d"; fi` + "\n"
		imsPy = `"$d"`
	}
	t := strconv.Itoa(r.timeout)
	var b strings.Builder
	fmt.Fprintf(&b, `set --
%sif command -v curl >/dev/null 2>&1; then
  w=$(curl -sS --max-time %s -X %s %s "$@" -o "$t" -D "$h" -w '%%{http_code} %%{url_effective}' %s 2>"$h.err") || w=0
elif command -v python3 >/dev/null 2>&1; then
  w=$(python3 -c %s %s %s "$t" "$h" %s %s %s %s %s)
`, ims, t, quote(r.method), strings.Join(curl, " "), quote(r.url),
		quote(pyFetch), quote(r.method), quote(r.url), t, boolDigit(r.validateCerts), boolDigit(r.follow), imsPy, quote(string(hj)))
	if r.method == "GET" && !r.body {
		fmt.Fprintf(&b, `elif command -v wget >/dev/null 2>&1; then
  wget -q -S -O "$t" --timeout=%s %s %s 2>"$h"
  s=$(sed -n 's/^ *HTTP\/[0-9.]* \([0-9][0-9]*\).*/\1/p' "$h" | tail -n 1); w=${s:-0}
  [ -n "$s" ] || cp "$h" "$h.err"
`, t, strings.Join(wget, " "), quote(r.url))
	}
	b.WriteString(`else echo "the host has neither curl nor python3 nor wget (wget does only GET): not supported by kupgrade" >&2; exit 127
fi
`)
	return b.String()
}

// runWithEnv runs a module's script with the task's environment (http_proxy and the like reach
// curl as they reach Ansible's urllib), stdin fed, stdout as it came.
func (m *Task) runWithEnv(ctx context.Context, script string, stdin io.Reader) (cmdOut, error) {
	var so, se bytes.Buffer
	rc, err := m.Conn.Run(ctx, Wrap(script, m.Env, m.Become, m.BecomeUser), stdin, &so, &se)
	return cmdOut{rc, so.String(), strings.TrimRight(se.String(), "\n")}, err
}

func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// withBasicAuth adds the Authorization header python3 sends (curl and wget take -u).
func withBasicAuth(h map[string]string, user, password string) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[k] = v
	}
	out["Authorization"] = "Basic " + b64(user+":"+password)
	return out
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// httpResp is what came back, parsed from the script's output.
type httpResp struct {
	status  int
	url     string
	headers map[string]string // the last response's headers, names in lower case
	err     string            // why no answer came
}

// parseHeaders reads a header dump (curl -D, wget -S, the python fallback): the last block.
func parseHeaders(dump string) map[string]string {
	h := map[string]string{}
	for l := range strings.SplitSeq(strings.ReplaceAll(dump, "\r", ""), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "HTTP/") {
			h = map[string]string{}
			continue
		}
		if k, v, ok := strings.Cut(l, ":"); ok {
			h[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	return h
}
