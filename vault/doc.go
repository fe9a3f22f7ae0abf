// Package vault reads Ansible Vault data: whole files and `!vault` values encrypted by
// ansible-vault in the 1.1 and 1.2 formats with the AES256 cipher.
//
// The payload is checked with HMAC-SHA256 (compared in constant time) before it is decrypted with
// AES-CTR; keys come from PBKDF2-SHA256 over the password with the file's salt, as ansible-vault
// derives them. Passwords come from files, executables or a prompt (see Source), gathered in a
// Keyring; Use makes a keyring the one the loaders of playbooks, inventories and variables read.
package vault
