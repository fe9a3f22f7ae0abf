package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// vaultPlay reads a vaulted vars file and a `!vault` value, both written by ansible-vault with
// the password in ../../vault/testdata/pw.txt (see vault/vault_test.go for the commands).
const vaultPlay = `- hosts: all
  gather_facts: false
  vars_files: [vars11.yml]
  vars:
    api_token: !vault |
%s
  tasks:
    - debug: {msg: "token={{ api_token }} db={{ db_password }}"}
`

func writeVaultPlay(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "vault", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	lines := strings.Split(strings.TrimSpace(read("string.yml")), "\n")[1:]
	for i, l := range lines {
		lines[i] = "      " + strings.TrimSpace(l)
	}
	files := map[string]string{
		"hosts.ini":  "node-1 ansible_connection=local\n",
		"play.yml":   strings.Replace(vaultPlay, "%s", strings.Join(lines, "\n"), 1),
		"vars11.yml": read("vars11.yml"),
		"pw.txt":     read("pw.txt"),
		"wrong.txt":  "not it\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("KUPGRADE_LOG_DIR", filepath.Join(dir, "runs"))
	return dir
}

// A playbook with a vaulted vars file and a !vault value runs with the password given by
// --vault-password-file, --vault-id or ANSIBLE_VAULT_PASSWORD_FILE.
func TestPlayDecryptsVaultedVariables(t *testing.T) {
	dir := writeVaultPlay(t)
	inv, play, pw := filepath.Join(dir, "hosts.ini"), filepath.Join(dir, "play.yml"), filepath.Join(dir, "pw.txt")
	for _, flags := range [][]string{
		{"--vault-password-file", pw},
		{"--vault-id", "dev@" + filepath.Join(dir, "wrong.txt"), "--vault-id", "prod@" + pw},
	} {
		code, out, errOut := run(t, append(append([]string{"-i", inv}, flags...), "play", play)...)
		if code != 0 || !strings.Contains(out, "token=hunter2 db=s3cret") {
			t.Errorf("%v: exit %d\n%s%s", flags, code, out, errOut)
		}
	}
	t.Setenv("ANSIBLE_VAULT_PASSWORD_FILE", pw)
	if code, out, errOut := run(t, "-i", inv, "play", play); code != 0 || !strings.Contains(out, "token=hunter2") {
		t.Errorf("ANSIBLE_VAULT_PASSWORD_FILE: exit %d\n%s%s", code, out, errOut)
	}
}

// A missing or wrong password is bad input (exit 2) naming the file and line, and never prints
// the plaintext.
func TestPlayVaultPasswordErrors(t *testing.T) {
	dir := writeVaultPlay(t)
	inv, play := filepath.Join(dir, "hosts.ini"), filepath.Join(dir, "play.yml")
	for _, tt := range []struct {
		flags []string
		want  string
	}{
		{nil, "play.yml:5:16: decrypt !vault value: no vault password was given"},
		{[]string{"--vault-password-file", filepath.Join(dir, "wrong.txt")}, "play.yml:5:16: decrypt !vault value: no vault password given decrypts it"},
		{[]string{"--vault-password-file", filepath.Join(dir, "absent")}, "vault password " + filepath.Join(dir, "absent")},
	} {
		code, out, errOut := run(t, append(append([]string{"-i", inv}, tt.flags...), "play", play)...)
		if code != exitBadInput || !strings.Contains(errOut, tt.want) || strings.Contains(out+errOut, "hunter2") {
			t.Errorf("%v: exit %d, want %d and %q\n%s%s", tt.flags, code, exitBadInput, tt.want, out, errOut)
		}
	}
}

// -e @FILE reads a vaulted file as ansible-playbook does.
func TestExtraVarsFileMayBeVaulted(t *testing.T) {
	dir := writeVaultPlay(t)
	inv, play := filepath.Join(dir, "hosts.ini"), filepath.Join(dir, "plain.yml")
	body := "- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: {msg: \"db={{ db_password }}\"}\n"
	if err := os.WriteFile(play, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := "@" + filepath.Join(dir, "vars11.yml")
	code, out, errOut := run(t, "-i", inv, "--vault-password-file", filepath.Join(dir, "pw.txt"), "play", play, "-e", vars)
	if code != 0 || !strings.Contains(out, "db=s3cret") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run(t, "-i", inv, "play", play, "-e", vars)
	if code != exitBadInput || !strings.Contains(errOut, "vars11.yml: decrypt vaulted data: no vault password was given") {
		t.Errorf("no password for -e @FILE: exit %d\n%s%s", code, out, errOut)
	}
}

// --ask-vault-pass and --vault-id LABEL@prompt ask on the terminal, without echoing the password.
func TestAskVaultPassOnTheTerminal(t *testing.T) {
	dir := writeVaultPlay(t)
	inv, play := filepath.Join(dir, "hosts.ini"), filepath.Join(dir, "play.yml")
	for _, flag := range []string{"--ask-vault-pass", "--vault-id=prod@prompt"} {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminal: %v", err)
		}
		vaultTTY = tty.Name()
		var screen bytes.Buffer
		done := make(chan struct{})
		go answerPrompt(ptmx, &screen, done)
		code, out, errOut := run(t, "-i", inv, flag, "play", play)
		tty.Close()
		ptmx.Close()
		<-done
		if code != 0 || !strings.Contains(out, "token=hunter2") {
			t.Errorf("%s: exit %d\n%s%s", flag, code, out, errOut)
		}
		if !strings.Contains(screen.String(), "Vault password") || strings.Contains(screen.String(), "correct horse") {
			t.Errorf("%s: the terminal showed %q (want the prompt, not the password)", flag, screen.String())
		}
	}
	vaultTTY = "/dev/tty"
}

// answerPrompt copies the terminal's output to screen and types the password once the prompt
// shows (echo is off by then).
func answerPrompt(ptmx io.ReadWriter, screen *bytes.Buffer, done chan<- struct{}) {
	defer close(done)
	buf, typed := make([]byte, 256), false
	for {
		n, err := ptmx.Read(buf)
		screen.Write(buf[:n])
		if !typed && strings.Contains(screen.String(), "Vault password") {
			ptmx.Write([]byte("correct horse\n"))
			typed = true
		}
		if err != nil {
			return
		}
	}
}
