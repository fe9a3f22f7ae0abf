package playbooks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/internal/testtree"
	"github.com/kupgrade/kupgrade/vault"
)

func vaultFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "vault", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const vaultRolePlay = "- hosts: all\n  roles: [app]\n"

// A role's vaulted vars/main.yml is read with the password given (fixtures written by
// ansible-vault: see vault/vault_test.go); without it, loading fails naming the file.
func TestRoleVarsMayBeVaulted(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"play.yml":                 vaultRolePlay,
		"roles/app/vars/main.yml":  vaultFixture(t, "vars12.yml"),
		"roles/app/tasks/main.yml": "- debug: {msg: hi}\n",
	})
	vault.Use(vault.NewKeyring(vault.Secret{ID: "prod", Password: []byte("correct horse")}))
	pb, err := Load(filepath.Join(dir, "play.yml"))
	vault.Use(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := pb.Plays[0].RoleVars["db_password"]; got != "s3cret" {
		t.Errorf("db_password = %#v, want the plaintext", got)
	}
	_, err = Load(filepath.Join(dir, "play.yml"))
	want := filepath.Join(dir, "roles/app/vars/main.yml") + ":1:1: decrypt vaulted data: no vault password was given"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, fault.ErrBadInput) {
		t.Errorf("no password: got %v, want %s (bad input)", err, want)
	}
}
