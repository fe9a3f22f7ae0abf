package sshconn

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/kevinburke/ssh_config"
)

// NoSSHConfig as Dialer.SSHConfig (or `-F none` in a host's ssh args) reads no ssh_config.
const NoSSHConfig = "none"

// configCache holds the ssh_config files a Dialer has parsed, by path.
type configCache struct {
	mu    sync.Mutex
	files map[string]sshConfig
}

// sshConfig answers ssh_config questions about one host alias; the zero value answers nothing.
// OpenSSH's rule holds: the first value found for a keyword wins (IdentityFile accumulates).
type sshConfig struct {
	cfg *ssh_config.Config
}

func (c sshConfig) get(alias, key string) string {
	if c.cfg == nil {
		return ""
	}
	v, _ := c.cfg.Get(alias, key) // an error is an Include that failed to parse: nothing there
	return v
}

func (c sshConfig) all(alias, key string) []string {
	if c.cfg == nil {
		return nil
	}
	v, _ := c.cfg.GetAll(alias, key)
	return v
}

// port is the Port of alias, 0 when none is set.
func (c sshConfig) port(alias string) (int, error) {
	v := c.get(alias, "Port")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("ssh_config: Port %q of host %s is not a port from 1 to 65535", v, alias)
	}
	return n, nil
}

// config returns the parsed ssh_config: file when a host's args name one (-F), else the
// Dialer's SSHConfig, else ~/.ssh/config. A missing default file is no config; a missing file
// that was named is an error, as with ssh.
func (d *Dialer) config(file string) (sshConfig, error) {
	named := file != ""
	if !named {
		file = d.SSHConfig
		named = file != ""
	}
	if file == NoSSHConfig {
		return sshConfig{}, nil
	}
	if file == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return sshConfig{}, nil
		}
		file = filepath.Join(home, ".ssh", "config")
	}
	file = expandHome(file)
	d.configs.mu.Lock()
	defer d.configs.mu.Unlock()
	if c, ok := d.configs.files[file]; ok {
		return c, nil
	}
	c, err := parseSSHConfig(file)
	if errors.Is(err, fs.ErrNotExist) && !named {
		err = nil
	}
	if err != nil {
		return sshConfig{}, err
	}
	if d.configs.files == nil {
		d.configs.files = map[string]sshConfig{}
	}
	d.configs.files[file] = c
	return c, nil
}

func parseSSHConfig(file string) (sshConfig, error) {
	f, err := os.Open(file)
	if err != nil {
		return sshConfig{}, fmt.Errorf("read ssh config %s: %w", file, err)
	}
	defer f.Close()
	cfg, err := ssh_config.Decode(f)
	if err != nil {
		// The library's message carries the line; "ssh_config: " is its own prefix.
		return sshConfig{}, fmt.Errorf("read ssh config %s: %s (fix that line, or pass -F none in ansible_ssh_common_args)",
			file, strings.TrimPrefix(err.Error(), "ssh_config: "))
	}
	return sshConfig{cfg: cfg}, nil
}

// expandHome replaces a leading ~ or ~/ by the home folder.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, p[1:])
}

// tokens are the values of ssh_config's % tokens for one hop.
type tokens struct {
	host, alias, user string // %h (the HostName), %n (the name given), %r
	port              int    // %p
}

// expand replaces ~ and the tokens ssh expands in IdentityFile, UserKnownHostsFile and
// ProxyCommand: %h %n %p %r %u %d %%.
func (t tokens) expand(s string) string {
	s = expandHome(s)
	if !strings.Contains(s, "%") {
		return s
	}
	home, _ := os.UserHomeDir()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'h':
			b.WriteString(t.host)
		case 'n':
			b.WriteString(t.alias)
		case 'p':
			b.WriteString(strconv.Itoa(t.port))
		case 'r':
			b.WriteString(t.user)
		case 'u':
			b.WriteString(localUser())
		case 'd':
			b.WriteString(home)
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
