package sshconn

import (
	"slices"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func TestSplitJump(t *testing.T) {
	type parts struct {
		user, host string
		port       int
	}
	tests := []struct {
		spec    string
		want    parts
		wantErr bool
	}{
		{spec: "bastion", want: parts{host: "bastion"}},
		{spec: "ops@bastion:2222", want: parts{"ops", "bastion", 2222}},
		{spec: "ops@10.0.0.1", want: parts{"ops", "10.0.0.1", 0}},
		{spec: "[fe80::1]:2200", want: parts{"", "fe80::1", 2200}},
		{spec: "[fe80::1]", want: parts{host: "fe80::1"}},
		{spec: "a@b@host:22", want: parts{"a@b", "host", 22}},
		{spec: "host:99999", wantErr: true},
		{spec: "ops@", wantErr: true},
		{spec: "@host", wantErr: true},
	}
	for _, tt := range tests {
		u, h, p, err := splitJump(tt.spec)
		if got := (parts{u, h, p}); (err != nil) != tt.wantErr || !tt.wantErr && got != tt.want {
			t.Errorf("splitJump(%q) = %+v, %v; want %+v, error %v", tt.spec, got, err, tt.want, tt.wantErr)
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
