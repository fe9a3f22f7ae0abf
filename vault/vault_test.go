package vault

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The fixtures were written by ansible-vault (ansible-core 2.14.18), password "correct horse"
// (testdata/pw.txt), from the plaintext "db_password: s3cret\nport: 5432\n":
//
//	ansible-vault encrypt --vault-password-file pw.txt vars11.yml
//	ansible-vault encrypt --vault-id prod@pw.txt vars12.yml
//	ansible-vault encrypt_string --vault-password-file pw.txt hunter2 --name api_token > string.yml
//
// inventory11.yml is "all:\n  hosts:\n    h1:\n      ansible_host: 10.0.0.7\n", encrypted as vars11.yml.
const plain = "db_password: s3cret\nport: 5432\n"

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ring(pw ...string) *Keyring {
	k := &Keyring{}
	for i, p := range pw {
		k.secrets = append(k.secrets, Secret{ID: []string{"default", "prod"}[i%2], Password: []byte(p)})
	}
	return k
}

func TestDecryptsAnsibleVaultFiles(t *testing.T) {
	for _, name := range []string{"vars11.yml", "vars12.yml"} {
		out, err := ring("correct horse").Decrypt(fixture(t, name))
		if err != nil || string(out) != plain {
			t.Errorf("%s: got %q, %v; want the plaintext", name, out, err)
		}
	}
}

func TestLabelledFileTriesEveryPassword(t *testing.T) {
	out, err := ring("wrong", "correct horse").Decrypt(fixture(t, "vars12.yml"))
	if err != nil || string(out) != plain {
		t.Fatalf("got %q, %v", out, err)
	}
	out, err = ring("correct horse", "wrong").Decrypt(fixture(t, "vars12.yml"))
	if err != nil || string(out) != plain {
		t.Fatalf("unlabelled password after a wrong labelled one: got %q, %v", out, err)
	}
}

func TestWrongOrMissingPasswordIsRefused(t *testing.T) {
	_, err := ring("wrong").Decrypt(fixture(t, "vars11.yml"))
	if !errors.Is(err, ErrWrongPassword) {
		t.Errorf("wrong password: got %v", err)
	}
	_, err = (*Keyring)(nil).Decrypt(fixture(t, "vars11.yml"))
	if !errors.Is(err, ErrNoPassword) {
		t.Errorf("no password: got %v", err)
	}
}

// A changed ciphertext byte fails the HMAC: nothing is decrypted, the error is the wrong-password one.
func TestTamperedPayloadFailsTheHMAC(t *testing.T) {
	env, err := parse(fixture(t, "vars11.yml"))
	if err != nil {
		t.Fatal(err)
	}
	encode := func() []byte {
		payload := hex.EncodeToString(env.salt) + "\n" + hex.EncodeToString(env.mac) + "\n" + hex.EncodeToString(env.cipher)
		return []byte(Header + ";1.1;AES256\n" + hex.EncodeToString([]byte(payload)) + "\n")
	}
	if out, err := ring("correct horse").Decrypt(encode()); err != nil || string(out) != plain {
		t.Fatalf("the untouched payload, re-encoded: got %q, %v", out, err)
	}
	env.cipher[0] ^= 1
	if _, err := ring("correct horse").Decrypt(encode()); !errors.Is(err, ErrWrongPassword) {
		t.Fatalf("tampered ciphertext: got %v, want %v", err, ErrWrongPassword)
	}
}

func TestBadHeadersAreNamed(t *testing.T) {
	for in, want := range map[string]string{
		"$ANSIBLE_VAULT;1.0;AES\nab\n":    "unsupported vault format",
		"$ANSIBLE_VAULT;1.1;AES128\nab\n": "unsupported vault cipher",
		"$ANSIBLE_VAULT;1.1;AES256\nzz\n": "decode vault payload",
	} {
		if _, err := ring("x").Decrypt([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

func TestVaultTaggedValuesBecomeStrings(t *testing.T) {
	Use(ring("correct horse"))
	defer Use(nil)
	var doc yaml.Node
	if err := yaml.Unmarshal(fixture(t, "string.yml"), &doc); err != nil {
		t.Fatal(err)
	}
	if err := DecryptNodes(&doc); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := doc.Decode(&v); err != nil || v["api_token"] != "hunter2" {
		t.Fatalf("got %v, %v", v, err)
	}
}

func TestVaultValueErrorHasPositionNotPlaintext(t *testing.T) {
	Use(ring("wrong"))
	defer Use(nil)
	var doc yaml.Node
	_ = yaml.Unmarshal(append([]byte("a: 1\n"), fixture(t, "string.yml")...), &doc)
	err := DecryptNodes(&doc)
	var ne *NodeError
	if !errors.As(err, &ne) || ne.Line != 2 || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("got %v", err)
	}
}
