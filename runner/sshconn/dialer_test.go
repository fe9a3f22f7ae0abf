package sshconn

import (
	"slices"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func TestParseJump(t *testing.T) {
	tests := []struct {
		spec    string
		want    hop
		wantErr bool
	}{
		{spec: "bastion", want: hop{user: "me", addr: "bastion:22"}},
		{spec: "ops@bastion:2222", want: hop{user: "ops", addr: "bastion:2222"}},
		{spec: "ops@10.0.0.1", want: hop{user: "ops", addr: "10.0.0.1:22"}},
		{spec: "[fe80::1]:2200", want: hop{user: "me", addr: "[fe80::1]:2200"}},
		{spec: "[fe80::1]", want: hop{user: "me", addr: "[fe80::1]:22"}},
		{spec: "a@b@host:22", want: hop{user: "a@b", addr: "host:22"}},
		{spec: "host:99999", wantErr: true},
		{spec: "ops@", wantErr: true},
		{spec: "@host", wantErr: true},
	}
	for _, tt := range tests {
		got, err := parseJump(tt.spec, "me")
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("parseJump(%q) = %+v, %v; want %+v, error %v", tt.spec, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestAlgorithmsPreferKnownTypes(t *testing.T) {
	rsa := knownhosts.KnownKey{Key: fakeKey(ssh.KeyAlgoRSA)}
	got := algorithms([]knownhosts.KnownKey{rsa})
	if len(got) < 3 || got[0] != ssh.KeyAlgoRSASHA512 || got[2] != ssh.KeyAlgoRSA {
		t.Errorf("algorithms(rsa) starts %v, want the RSA signatures first", got)
	}
	if !slices.Contains(got, ssh.KeyAlgoED25519) {
		t.Errorf("algorithms(rsa) = %v, lacks the other algorithms", got)
	}
	if algorithms(nil) != nil {
		t.Error("algorithms(nil) should leave the library default")
	}
}

type fakeKey string

func (k fakeKey) Type() string                        { return string(k) }
func (k fakeKey) Marshal() []byte                     { return []byte(k) }
func (k fakeKey) Verify([]byte, *ssh.Signature) error { return nil }
