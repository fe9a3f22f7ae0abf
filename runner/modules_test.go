package runner_test

import (
	"encoding/base64"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

func reg(t *testing.T, recap *runner.Recap, host, name string) map[string]any {
	t.Helper()
	m, ok := recap.Registered[host][name].(map[string]any)
	if !ok {
		t.Fatalf("%s: nothing registered as %s", host, name)
	}
	return m
}

func TestFileModulesAreIdempotent(t *testing.T) {
	dir := t.TempDir()
	pbDir := t.TempDir()
	os.MkdirAll(filepath.Join(pbDir, "files"), 0o755)
	os.WriteFile(filepath.Join(pbDir, "files", "src.txt"), []byte("from a file\n"), 0o644)
	os.WriteFile(filepath.Join(pbDir, "motd.j2"), []byte("hello {{ inventory_hostname }}\n"), 0o644)
	pb := `- hosts: all
  gather_facts: false
  tasks:
    - name: dir
      file: {path: ` + dir + `/d, state: directory, mode: "0750"}
    - name: copy content
      copy: {content: "one\n", dest: ` + dir + `/d/one, mode: "0600"}
    - name: copy src into a folder
      copy: {src: ` + filepath.Join(pbDir, "files", "src.txt") + `, dest: ` + dir + `/d/}
    - name: template
      template: {src: ` + filepath.Join(pbDir, "motd.j2") + `, dest: ` + dir + `/motd}
    - name: touch
      file: {path: ` + dir + `/t, state: touch}
    - name: remove
      file: {path: ` + dir + `/gone, state: absent}
`
	os.WriteFile(filepath.Join(dir, "gone"), nil, 0o644)
	_, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", pb, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "task_changed dir\ntask_changed copy content\ntask_changed copy src into a folder\ntask_changed template\ntask_changed touch\ntask_changed remove"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("first run:\n%s", got)
	}
	for p, content := range map[string]string{"d/one": "one\n", "d/src.txt": "from a file\n", "motd": "hello h1\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(b) != content {
			t.Errorf("%s = %q, %v; want %q", p, b, err, content)
		}
	}
	if st, _ := os.Stat(filepath.Join(dir, "d", "one")); st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
	if st, _ := os.Stat(filepath.Join(dir, "d")); st.Mode().Perm() != 0o750 {
		t.Errorf("dir mode = %v, want 0750", st.Mode().Perm())
	}
	_, err, rec = run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", pb, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want = "task_ok dir\ntask_ok copy content\ntask_ok copy src into a folder\ntask_ok template\ntask_changed touch\ntask_ok remove"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("second run must change nothing but touch:\n%s", got)
	}
}

func TestReadModules(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("abc"), 0o640)
	out := t.TempDir()
	recap, err, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - {stat: {path: `+dir+`/f}, register: st}
    - {stat: {path: `+dir+`/missing}, register: missing}
    - {stat: {path: `+dir+`}, register: d}
    - {slurp: {src: `+dir+`/f}, register: sl}
    - {fetch: {src: `+dir+`/f, dest: `+out+`}, register: fe}
    - {fetch: {src: `+dir+`/f, dest: `+out+`/flat.txt, flat: true}, register: flat}
    - {fetch: {src: `+dir+`/f, dest: `+out+`}, register: again}
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := reg(t, recap, "h1", "st")["stat"].(map[string]any)
	if st["exists"] != true || st["size"] != int64(3) || st["mode"] != "0640" || st["isdir"] != false ||
		st["checksum"] != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("stat = %v", st)
	}
	if reg(t, recap, "h1", "missing")["stat"].(map[string]any)["exists"] != false {
		t.Error("missing file exists")
	}
	if reg(t, recap, "h1", "d")["stat"].(map[string]any)["isdir"] != true {
		t.Error("folder is not a dir")
	}
	if c := reg(t, recap, "h1", "sl")["content"]; c != base64.StdEncoding.EncodeToString([]byte("abc")) {
		t.Errorf("slurp = %v", c)
	}
	for _, p := range []string{filepath.Join(out, "h1", dir, "f"), filepath.Join(out, "flat.txt")} {
		if b, err := os.ReadFile(p); string(b) != "abc" {
			t.Errorf("fetched %s = %q, %v", p, b, err)
		}
	}
	if reg(t, recap, "h1", "fe")["changed"] != true || reg(t, recap, "h1", "again")["changed"] != false {
		t.Error("fetch must change once, then find the copy identical")
	}
}

func TestCommandModule(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "exists"), nil, 0o644)
	recap, err, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: words
      command: printf "%s|" 'a b' "c\"d" e\ f $HOME x$HOME ${HOME}y ~ ~/x a~ $NOPE_UNSET ;
      register: words
    - {command: "pwd", args: {chdir: `+dir+`}, register: pwd}
    - {command: "false", args: {creates: `+dir+`/exists}, register: created}
    - {command: "false", args: {removes: `+dir+`/nope}, register: removed}
    - {command: "cat", args: {stdin: fed}, register: fed}
    - {shell: "echo out; echo err >&2; exit 0", register: sh}
    - {shell: "wc -c", args: {stdin: abc, stdin_add_newline: false}, register: nonl}
    - {shell: "wc -c", args: {stdin: abc}, register: nl}
    - {command: "cat ~/nothing-here", args: {chdir: "~"}, register: tilde, ignore_errors: true}
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := os.Getenv("HOME")
	if got, want := reg(t, recap, "h1", "words")["stdout"], `a b|c"d|e f|`+h+`|x`+h+`|`+h+`y|`+h+`|`+h+`/x|a~|$NOPE_UNSET|;|`; got != want {
		t.Errorf("command words = %q, want %q: shell quoting rules; $VAR and ~ expanded as Ansible does, nothing else", got, want)
	}
	if got := reg(t, recap, "h1", "pwd")["stdout"]; got != dir {
		t.Errorf("chdir: pwd = %v", got)
	}
	for _, k := range []string{"created", "removed"} {
		if r := reg(t, recap, "h1", k); r["changed"] != false || r["rc"] != 0 {
			t.Errorf("%s: the guard must skip the command: %v", k, r)
		}
	}
	if got := reg(t, recap, "h1", "fed")["stdout"]; got != "fed" {
		t.Errorf("stdin: %v", got)
	}
	if a, b := reg(t, recap, "h1", "nonl")["stdout"], reg(t, recap, "h1", "nl")["stdout"]; a != "3" || b != "4" {
		t.Errorf("stdin_add_newline: false sends %v bytes, the default %v; want 3 and 4", a, b)
	}
	if e := reg(t, recap, "h1", "tilde")["stderr"].(string); !strings.Contains(e, "nothing-here") {
		t.Errorf("chdir ~: %v", e)
	}
	sh := reg(t, recap, "h1", "sh")
	if sh["stdout"] != "out" || sh["stderr"] != "err" || len(sh["stdout_lines"].([]any)) != 1 {
		t.Errorf("shell result = %v", sh)
	}
}

func TestWaitForAndAssert(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	dir := t.TempDir()
	recap, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - {name: port, wait_for: {port: `+itoa(port)+`, timeout: 5}}
    - {name: path gone, wait_for: {path: `+dir+`/nothing, state: absent, timeout: 5}}
    - {name: never, wait_for: {path: `+dir+`/nothing, timeout: 1, sleep: 1}, ignore_errors: true, register: never}
    - name: assert
      assert:
        that: [1 + 1 == 2, "inventory_hostname.startswith('h')"]
    - name: assert fails
      assert:
        that: inventory_hostname == 'other'
        fail_msg: not the other host
`, runner.PlayOptions{})
	if err == nil || !strings.Contains(err.Error(), "not the other host") {
		t.Errorf("err = %v, want the assert's fail_msg", err)
	}
	for _, task := range []string{"port", "path gone", "assert"} {
		if e, _ := rec.find("h1", task); e.Event != runner.EventTaskOK {
			t.Errorf("%s: %s %s", task, e.Event, e.Msg)
		}
	}
	if m := reg(t, recap, "h1", "never")["msg"]; !strings.Contains(m.(string), "Timeout when waiting for path") {
		t.Errorf("wait_for timeout msg = %v", m)
	}
}

func itoa(n int) string { return fmtInt(n) }
