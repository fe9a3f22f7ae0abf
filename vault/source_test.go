package vault

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPasswordFileAndScript(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	os.WriteFile(file, []byte("correct horse\n"), 0o600)
	script := filepath.Join(dir, "pw.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho 'correct horse'\n"), 0o700)
	client := filepath.Join(dir, "pw-client.sh")
	os.WriteFile(client, []byte("#!/bin/sh\n[ \"$1 $2\" = '--vault-id prod' ] && echo 'correct horse'\n"), 0o700)
	for _, src := range []string{file, script, client} {
		s, err := Load("prod", src, nil)
		if err != nil || string(s.Password) != "correct horse" {
			t.Errorf("%s: got %q, %v", src, s.Password, err)
		}
	}
}

func TestPasswordSourceErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	failing := filepath.Join(dir, "fail.sh")
	os.WriteFile(failing, []byte("#!/bin/sh\necho nope >&2; exit 3\n"), 0o700)
	for _, src := range []string{empty, failing, filepath.Join(dir, "absent"), "prompt"} {
		if _, err := Load("default", src, nil); err == nil {
			t.Errorf("%s: no error", src)
		}
	}
}

func TestParseID(t *testing.T) {
	if id, src := ParseID("prod@/a/b"); id != "prod" || src != "/a/b" {
		t.Errorf("got %s %s", id, src)
	}
	if id, src := ParseID("prompt"); id != "default" || src != "prompt" {
		t.Errorf("got %s %s", id, src)
	}
}
