package modules

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// modURI makes an HTTP request from the host (curl, else python3) and returns what Ansible's uri
// returns: status, url, msg, redirected, the response headers as lower-case keys with _ for -,
// json when the answer is JSON, content when return_content. A status not in status_code fails.
func modURI(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	method := strings.ToUpper(ArgStr(args, "method"))
	if method == "" {
		method = "GET"
	}
	req, bad := requestArgs(args, method, 30)
	if bad != "" {
		return Failure(bad), nil
	}
	body, bad := uriBody(args, req.headers)
	if bad != "" {
		return Failure(bad), nil
	}
	req.body = body != nil
	switch ArgStr(args, "follow_redirects") {
	case "all", "yes", "true":
		req.follow = true
	case "", "safe", "urllib2":
		req.follow = method == "GET" || method == "HEAD"
	}
	if argBool(args, "force_basic_auth", false) && req.user != "" {
		req.headers["Authorization"] = "Basic " + b64(req.user+":"+req.password)
		req.user = ""
	}
	codes, bad := statusCodes(args["status_code"])
	if bad != "" {
		return Failure(bad), nil
	}
	var b strings.Builder
	for _, g := range []struct{ key, test, why string }{{"creates", "-e", "exists"}, {"removes", "! -e", "does not exist"}} {
		if p := ArgStr(args, g.key); p != "" {
			fmt.Fprintf(&b, "if [ %s %s ]; then echo %s; exit 0; fi\n", g.test, hostPath(p), quote("kupgrade:skip="+p+" "+g.why))
		}
	}
	b.WriteString("t=$(mktemp) || exit 1; h=$t.h; trap 'rm -f -- \"$t\" \"$h\" \"$h.err\"' EXIT\n")
	b.WriteString(fetchScript(req))
	b.WriteString(`echo "kupgrade:w=$w"; echo "kupgrade:err=$(head -c 300 "$h.err" 2>/dev/null | tr '\n' ' ')"
cat "$h" 2>/dev/null; echo; echo kupgrade:body; cat "$t"`)
	out, err := m.runWithEnv(ctx, b.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if out.rc != 0 {
		return commandFailure("uri "+req.url, out), nil
	}
	return uriResult(req, out.stdout, codes, argBool(args, "return_content", false)), nil
}

// uriBody is the request's body, encoded as body_format says (setting Content-Type as Ansible).
func uriBody(args map[string]any, headers map[string]string) ([]byte, string) {
	v, ok := args["body"]
	if !ok || v == nil {
		return nil, ""
	}
	setType := func(t string) {
		for k := range headers {
			if strings.EqualFold(k, "Content-Type") {
				return
			}
		}
		headers["Content-Type"] = t
	}
	switch f := ArgStr(args, "body_format"); f {
	case "", "raw":
		return []byte(ArgStr(args, "body")), ""
	case "json":
		setType("application/json")
		if s, ok := v.(string); ok {
			return []byte(s), ""
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, "body: " + err.Error()
		}
		return b, ""
	case "form-urlencoded":
		setType("application/x-www-form-urlencoded")
		m, ok := v.(map[string]any)
		if !ok {
			return []byte(ArgStr(args, "body")), ""
		}
		q := url.Values{}
		for k, x := range m {
			q.Set(k, fmt.Sprint(x))
		}
		return []byte(q.Encode()), ""
	default:
		return nil, fmt.Sprintf("body_format %q is not supported by kupgrade (raw, json, form-urlencoded)", f)
	}
}

func statusCodes(v any) ([]int, string) {
	var list []any
	switch x := v.(type) {
	case nil:
		return []int{200}, ""
	case []any:
		list = x
	case string:
		for s := range strings.SplitSeq(x, ",") {
			list = append(list, strings.TrimSpace(s))
		}
	default:
		list = []any{x}
	}
	codes := make([]int, 0, len(list))
	for _, c := range list {
		n, err := strconv.Atoi(fmt.Sprint(c))
		if err != nil {
			return nil, fmt.Sprintf("status_code: %v is not a status", c)
		}
		codes = append(codes, n)
	}
	return codes, ""
}

func uriResult(req httpReq, stdout string, codes []int, returnContent bool) map[string]any {
	if skip, ok := strings.CutPrefix(strings.TrimSpace(stdout), "kupgrade:skip="); ok {
		return map[string]any{"changed": false, "skipped": true, "msg": "skipped, since " + skip}
	}
	head, content, _ := strings.Cut(stdout, "\nkupgrade:body\n")
	kv := markedLines(head)
	status, final, _ := strings.Cut(kv["w"], " ")
	code, _ := strconv.Atoi(status)
	if final == "" {
		final = req.url
	}
	hdrs := parseHeaders(head)
	res := map[string]any{"changed": false, "status": code, "url": final, "redirected": final != req.url,
		"elapsed": 0, "cookies": map[string]any{}, "cookies_string": ""}
	for k, v := range hdrs {
		if !strings.HasPrefix(k, "kupgrade") {
			res[strings.ReplaceAll(k, "-", "_")] = v
		}
	}
	if cl, ok := hdrs["content-length"]; ok {
		res["msg"] = "OK (" + cl + " bytes)"
	} else {
		res["msg"] = "OK (unknown bytes)"
	}
	if code == 0 {
		res["status"], res["msg"] = -1, "Request failed: "+strings.TrimSpace(kv["err"])
	} else if code >= 400 {
		res["msg"] = fmt.Sprintf("HTTP Error %d: %s", code, http.StatusText(code))
	}
	if strings.Contains(hdrs["content-type"], "json") {
		var js any
		if json.Unmarshal([]byte(content), &js) == nil {
			res["json"] = normaliseJSON(js)
		}
	}
	if returnContent {
		res["content"] = content
	}
	if !slices.Contains(codes, res["status"].(int)) {
		res["failed"] = true
		res["msg"] = fmt.Sprintf("Status code was %d and not %s: %s", res["status"], pyList(codes), res["msg"])
	}
	return res
}

// pyList prints codes as Python prints a list of ints: [200, 201].
func pyList(codes []int) string {
	s := make([]string, len(codes))
	for i, c := range codes {
		s[i] = strconv.Itoa(c)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// normaliseJSON turns JSON numbers that are whole into ints, as Python's json reads them.
func normaliseJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normaliseJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normaliseJSON(e)
		}
	case float64:
		if x == float64(int(x)) && x < 1e15 && x > -1e15 {
			return int(x)
		}
	}
	return v
}
