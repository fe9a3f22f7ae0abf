package runner_test

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// testServer serves /file (and counts the GETs of it), /missing (404) and /api (JSON, echoing
// the request's method, body and X-Test header), on 127.0.0.1.
func testServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var gets atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		gets.Add(1)
		w.Write([]byte("payload\n"))
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, 1024)
		n, _ := r.Body.Read(body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"method": "` + r.Method + `", "body": ` + string(body[:n]) + `, "x": "` + r.Header.Get("X-Test") + `"}`))
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s, &gets
}

func TestGetURL(t *testing.T) {
	testGetURL(t, &runnertest.LocalDialer{})
}

// TestHTTPWithPython3 runs get_url and uri on a host that has python3 but neither curl nor wget.
func TestHTTPWithPython3(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed here")
	}
	env := withoutTools(t, "curl", "wget")
	testGetURL(t, &runnertest.LocalDialer{Env: env})
	testURI(t, &runnertest.LocalDialer{Env: env})
}

// TestGetURLWithWget runs get_url on a host that has wget but neither curl nor python3.
func TestGetURLWithWget(t *testing.T) {
	if _, err := exec.LookPath("wget"); err != nil {
		t.Skip("wget is not installed here")
	}
	testGetURL(t, &runnertest.LocalDialer{Env: withoutTools(t, "curl", "python3")})
}

// withoutTools is a PATH of links to every command on this one but names.
func withoutTools(t *testing.T, names ...string) []string {
	t.Helper()
	bin := t.TempDir()
	// /usr/bin first: a pyenv shim earlier on PATH takes a second to start python3.
	for _, d := range append([]string{"/usr/bin"}, filepath.SplitList(os.Getenv("PATH"))...) {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if !slices.Contains(names, e.Name()) {
				os.Symlink(filepath.Join(d, e.Name()), filepath.Join(bin, e.Name())) // the first of a name wins
			}
		}
	}
	return []string{"PATH=" + bin}
}

func testGetURL(t *testing.T, d runner.Dialer) {
	s, gets := testServer(t)
	dir := t.TempDir()
	sum := sha256.Sum256([]byte("payload\n"))
	pb := `- hosts: all
  gather_facts: false
  tasks:
    - {name: download, get_url: {url: "` + s.URL + `/file", dest: ` + dir + `/f, mode: "0600"}, register: dl}
    - {name: again, get_url: {url: "` + s.URL + `/file", dest: ` + dir + `/f, mode: "0600"}}
    - {name: into dir, get_url: {url: "` + s.URL + `/file", dest: ` + dir + `, checksum: "sha256:` + hex.EncodeToString(sum[:]) + `"}, register: indir}
    - {name: by checksum, get_url: {url: "` + s.URL + `/file", dest: ` + dir + `/file, checksum: "sha256:` + hex.EncodeToString(sum[:]) + `"}}
    - {name: bad checksum, get_url: {url: "` + s.URL + `/file", dest: ` + dir + `/g, checksum: "sha256:00ff"}, ignore_errors: true, register: bad}
    - {name: 404, get_url: {url: "` + s.URL + `/missing", dest: ` + dir + `/m}, ignore_errors: true, register: nf}
    - {name: would download, get_url: {url: "` + s.URL + `/file", dest: ` + dir + `/later}, check_mode: true}
`
	recap, _, rec := run(t, d, "all:\n  hosts:\n    h1:\n", pb, runner.PlayOptions{})
	want := "task_changed download\ntask_ok again\ntask_changed into dir\ntask_ok by checksum\ntask_failed bad checksum\ntask_failed 404\ntask_changed would download"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("results:\n%s\nwant\n%s", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "payload\n" {
		t.Errorf("f = %q", b)
	}
	if st, _ := os.Stat(filepath.Join(dir, "f")); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	dl := reg(t, recap, "h1", "dl")
	sha1 := sha1.Sum([]byte("payload\n"))
	if dl["status_code"] != 200 || dl["msg"] != "OK (8 bytes)" || dl["checksum_src"] != hex.EncodeToString(sha1[:]) {
		t.Errorf("result = %v", dl)
	}
	if d := reg(t, recap, "h1", "indir")["dest"]; d != filepath.Join(dir, "file") {
		t.Errorf("dest into a folder = %v", d)
	}
	if m := reg(t, recap, "h1", "bad")["msg"].(string); !strings.HasPrefix(m, "The checksum for "+dir+"/g did not match 00ff; it was ") {
		t.Errorf("bad checksum msg = %q", m)
	}
	if _, err := os.Stat(filepath.Join(dir, "g")); err == nil {
		t.Error("a download whose checksum does not match must be removed")
	}
	if _, err := os.Stat(filepath.Join(dir, "later")); err == nil {
		t.Error("check mode downloaded")
	}
	if nf := reg(t, recap, "h1", "nf"); nf["status_code"] != 404 || nf["msg"] != "Request failed" {
		t.Errorf("404 = %v", nf)
	}
	// download, again (If-Modified-Since: the server ignores it, so a GET; same sha1, no change),
	// into dir, bad checksum: the checksum match needs no request at all.
	if n := gets.Load(); n != 4 {
		t.Errorf("%d GETs of /file, want 4", n)
	}
}

func TestURI(t *testing.T) {
	testURI(t, &runnertest.LocalDialer{})
}

func testURI(t *testing.T, d runner.Dialer) {
	s, _ := testServer(t)
	pb := `- hosts: all
  gather_facts: false
  tasks:
    - name: post json
      uri:
        url: "` + s.URL + `/api"
        method: POST
        body: {a: 1, b: [x]}
        body_format: json
        headers: {X-Test: hi}
        status_code: [200, 201]
        return_content: true
      register: post
    - {name: get, uri: {url: "` + s.URL + `/file"}, register: get}
    - {name: wrong status, uri: {url: "` + s.URL + `/missing"}, ignore_errors: true, register: nf}
    - {name: refused, uri: {url: "http://127.0.0.1:1/", timeout: 5}, ignore_errors: true, register: refused}
    - {name: guarded, uri: {url: "` + s.URL + `/file", creates: /}, register: guarded}
`
	recap, _, rec := run(t, d, "all:\n  hosts:\n    h1:\n", pb, runner.PlayOptions{})
	want := "task_ok post json\ntask_ok get\ntask_failed wrong status\ntask_failed refused\ntask_skipped guarded"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("results:\n%s\nwant\n%s", got, want)
	}
	post := reg(t, recap, "h1", "post")
	js, _ := post["json"].(map[string]any)
	if post["status"] != 201 || js["method"] != "POST" || js["x"] != "hi" || post["content_type"] != "application/json" {
		t.Errorf("post = %v", post)
	}
	if body, _ := js["body"].(map[string]any); body["a"] != 1 || len(body["b"].([]any)) != 1 {
		t.Errorf("the server got body %v, want {a: 1, b: [x]}", js["body"])
	}
	if c, _ := post["content"].(string); !strings.HasPrefix(c, `{"method": "POST"`) {
		t.Errorf("content = %q", c)
	}
	if g := reg(t, recap, "h1", "get"); g["status"] != 200 || g["msg"] != "OK (8 bytes)" || g["content"] != nil {
		t.Errorf("get = %v", g)
	}
	if m := reg(t, recap, "h1", "nf")["msg"]; m != "Status code was 404 and not [200]: HTTP Error 404: Not Found" {
		t.Errorf("404 msg = %v", m)
	}
	if r := reg(t, recap, "h1", "refused"); r["status"] != -1 || !strings.HasPrefix(r["msg"].(string), "Status code was -1 and not [200]: Request failed: ") {
		t.Errorf("refused = %v", r)
	}
}
