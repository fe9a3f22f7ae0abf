package inventory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// A vaulted inventory, a vaulted group_vars file and a `!vault` value are read with the
// password given (fixtures written by ansible-vault: see vault/vault_test.go).
func TestVaultedInventoryAndVars(t *testing.T) {
	vault.Use(vault.NewKeyring(vault.Secret{ID: "default", Password: []byte("correct horse")}))
	defer vault.Use(nil)
	lines := strings.Split(strings.TrimSpace(vaultFixture(t, "string.yml")), "\n")
	value := strings.Replace(strings.Join(lines, "\n"), "api_token:", "ansible_become_password:", 1)
	inv := mustLoad(t, map[string]string{
		"inventory.yml":      "all:\n  hosts:\n    h1:\n  vars:\n    " + strings.ReplaceAll(value, "\n", "\n    ") + "\n",
		"group_vars/all.yml": vaultFixture(t, "vars11.yml"),
		"host_vars/h1.yml":   vaultFixture(t, "vars12.yml"),
	})
	h, _ := inv.Host("h1")
	for name, want := range map[string]any{"ansible_become_password": "hunter2", "db_password": "s3cret", "port": 5432} {
		if got, _ := h.Var(name); got != want {
			t.Errorf("%s = %#v, want %#v", name, got, want)
		}
	}
}

func TestVaultedInventoryFile(t *testing.T) {
	vault.Use(vault.NewKeyring(vault.Secret{ID: "default", Password: []byte("correct horse")}))
	defer vault.Use(nil)
	inv := mustLoad(t, map[string]string{"inventory.yml": vaultFixture(t, "inventory11.yml")})
	if h, ok := inv.Host("h1"); !ok || h.Address() != "10.0.0.7" {
		t.Fatalf("host h1 not read from the vaulted inventory: %v", inv.GroupNames())
	}
}

func TestVaultedGroupVarsWithoutPassword(t *testing.T) {
	path := writeTree(t, map[string]string{
		"inventory.yml":      "all:\n  hosts:\n    h1:\n",
		"group_vars/all.yml": vaultFixture(t, "vars11.yml"),
	})
	_, err := Load(path)
	want := "group_vars/all.yml:1:1: decrypt vaulted data: no vault password was given; give the password with"
	if err == nil || !strings.HasPrefix(relErr(path, err), want) {
		t.Fatalf("got %v, want %s", err, want)
	}
}
