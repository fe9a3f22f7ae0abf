package vault

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"errors"
	"fmt"
)

// errMismatch means the HMAC did not verify: the password is not the one that encrypted the data.
var errMismatch = errors.New("hmac mismatch")

// open verifies the payload's HMAC with a key derived from password and, only then, decrypts it.
func (env *envelope) open(password []byte) ([]byte, error) {
	keys, err := pbkdf2.Key(sha256.New, string(password), env.salt, 10000, 80)
	if err != nil {
		return nil, fmt.Errorf("derive vault key: %w", err)
	}
	aesKey, macKey, iv := keys[:32], keys[32:64], keys[64:80]
	mac := hmac.New(sha256.New, macKey)
	mac.Write(env.cipher)
	if !hmac.Equal(mac.Sum(nil), env.mac) {
		return nil, errMismatch
	}
	block, err := aes.NewCipher(aesKey)
	if err != nil {
		return nil, fmt.Errorf("start aes: %w", err)
	}
	out := make([]byte, len(env.cipher))
	cipher.NewCTR(block, iv).XORKeyStream(out, env.cipher)
	return unpad(out)
}

// unpad removes the PKCS#7 padding ansible-vault adds before encrypting.
func unpad(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, errors.New("decrypt vault: empty plaintext")
	}
	n := int(b[len(b)-1])
	if n == 0 || n > aes.BlockSize || n > len(b) {
		return nil, errors.New("decrypt vault: bad padding")
	}
	for _, c := range b[len(b)-n:] {
		if int(c) != n {
			return nil, errors.New("decrypt vault: bad padding")
		}
	}
	return b[:len(b)-n], nil
}
