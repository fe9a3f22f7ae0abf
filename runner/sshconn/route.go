package sshconn

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/inventory"
)

// maxProxyDepth bounds ProxyJump chains that ssh_config extends (a jump host with a ProxyJump
// of its own): deeper is a loop.
const maxProxyDepth = 8

// target is everything Dial needs from an inventory host.
type target struct {
	name string
	hops []hop // jump hosts first, the host itself last
}

// hop is one SSH server on the way: each jump host, then the target.
type hop struct {
	user, addr string
	tok        tokens   // for ProxyCommand and messages
	keys       keySet   // what to authenticate with
	hostKeys   hostKeys // how to check its host key
	// proxyCommand reaches this hop (only ever the first) through a command's stdin and stdout.
	proxyCommand string
}

// keySet is the key files a hop offers, after the agent's keys.
type keySet struct {
	files    []string // in order; none means ~/.ssh/id_ed25519, id_ecdsa, id_rsa when present
	required int      // the first files, named by the inventory or its ssh args, must exist
	only     bool     // IdentitiesOnly: offer agent keys only when they are among files
}

// targetOf resolves how to reach h as Ansible's ssh connection would: the inventory's
// ansible_host/ansible_user/ansible_port/ansible_ssh_private_key_file first, then its ssh args
// (ansible_ssh_args, ansible_ssh_common_args, then ansible_ssh_extra_args), then ssh_config,
// then the defaults.
func (d *Dialer) targetOf(h *inventory.Host) (target, error) {
	bad := func(err error) (target, error) {
		return target{}, fault.Mark(fmt.Errorf("host %s: %w", h.Name, err), fault.ErrBadInput)
	}
	opts, err := h.SSHOptions()
	if err != nil {
		return target{}, fault.Mark(err, fault.ErrBadInput)
	}
	cfg, err := d.config(opts.ConfigFile)
	if err != nil {
		return bad(err)
	}
	last, err := d.lastHop(h, opts, cfg)
	if err != nil {
		return bad(err)
	}
	jumps, command := opts.ProxyJump, opts.ProxyCommand
	if !opts.ProxySet {
		if jumps, command, err = configProxy(cfg, last.tok.alias); err != nil {
			return bad(err)
		}
	}
	hops, command, err := d.jumpHops(cfg, jumps, command, last, 0)
	if err != nil {
		return bad(err)
	}
	t := target{name: h.Name, hops: append(hops, last)}
	if command != "" {
		t.hops[0].proxyCommand = t.hops[0].tok.expand(command)
	}
	return t, nil
}

// lastHop is the host itself.
func (d *Dialer) lastHop(h *inventory.Host, o inventory.SSHOptions, cfg sshConfig) (hop, error) {
	alias := h.Address()
	tok := tokens{alias: alias, user: firstOf(h.User(), o.User, cfg.get(alias, "User"), localUser())}
	tok.host = firstOf(o.HostName, expandHostName(cfg.get(alias, "HostName"), alias), alias)
	port, err := cfg.port(alias)
	switch {
	case err != nil:
		return hop{}, err
	case h.PortSet():
		port = h.Port()
	case o.Port != 0:
		port = o.Port
	case port == 0:
		port = 22
	}
	tok.port = port
	var keys keySet
	if kf := h.KeyFile(); kf != "" {
		keys.files = append(keys.files, kf)
	}
	for _, f := range o.IdentityFiles {
		keys.files = append(keys.files, tok.expand(f))
	}
	keys.required = len(keys.files)
	for _, f := range cfg.all(alias, "IdentityFile") {
		keys.files = append(keys.files, tok.expand(f))
	}
	keys.only = isYes(firstOf(o.IdentitiesOnly, cfg.get(alias, "IdentitiesOnly")))
	hk, err := d.hostKeysOf(o, cfg, tok)
	if err != nil {
		return hop{}, err
	}
	return hop{user: tok.user, addr: joinHostPort(tok.host, port), tok: tok, keys: keys, hostKeys: hk}, nil
}

// hostKeysOf picks the known_hosts files and the checking mode: the host's ssh args, then
// kupgrade's own settings (--known-hosts, kupgrade_known_hosts, --accept-new-host-keys), then
// ssh_config, then ~/.ssh/known_hosts and refusing unknown keys.
func (d *Dialer) hostKeysOf(o inventory.SSHOptions, cfg sshConfig, tok tokens) (hostKeys, error) {
	files := o.KnownHostsFiles
	if len(files) == 0 && d.KnownHosts != "" {
		files = []string{d.KnownHosts}
	}
	if len(files) == 0 {
		files = strings.Fields(cfg.get(tok.alias, "UserKnownHostsFile"))
	}
	if len(files) == 0 {
		home, err := os.UserHomeDir()
		if err != nil {
			return hostKeys{}, fmt.Errorf("find known_hosts: %w", err)
		}
		files = []string{filepath.Join(home, ".ssh", "known_hosts")}
	}
	hk := hostKeys{mode: o.StrictHostKeyChecking, cache: &d.knownHosts, log: d.Log}
	for _, f := range files {
		hk.paths = append(hk.paths, tok.expand(f))
	}
	if hk.mode == "" && d.AcceptNew {
		hk.mode = strictAcceptNew
	}
	if hk.mode == "" {
		var err error
		if hk.mode, err = strictMode(cfg.get(tok.alias, "StrictHostKeyChecking")); err != nil {
			return hostKeys{}, err
		}
	}
	return hk, nil
}

// jumpHops resolves the jump hosts, each through ssh_config as ssh does, and the first one's own
// proxy (a ProxyJump or ProxyCommand ssh_config gives it). It returns the ProxyCommand that
// reaches the first of the returned hops, if any.
func (d *Dialer) jumpHops(cfg sshConfig, jumps []string, command string, base hop, depth int) ([]hop, string, error) {
	if len(jumps) == 0 {
		return nil, command, nil
	}
	if depth >= maxProxyDepth {
		return nil, "", fmt.Errorf("ProxyJump: more than %d jump hosts in a row (a loop in ssh_config?)", maxProxyDepth)
	}
	hops := make([]hop, 0, len(jumps))
	for _, spec := range jumps {
		hp, err := jumpHop(cfg, spec, base)
		if err != nil {
			return nil, "", fmt.Errorf("ProxyJump %q: %w", spec, err)
		}
		hops = append(hops, hp)
	}
	more, command, err := configProxy(cfg, hops[0].tok.alias)
	if err != nil {
		return nil, "", err
	}
	before, command, err := d.jumpHops(cfg, more, command, base, depth+1)
	if err != nil {
		return nil, "", err
	}
	return append(before, hops...), command, nil
}

// jumpHop is one jump host: what the spec says, then its ssh_config, then the target's user,
// keys and host key checking.
func jumpHop(cfg sshConfig, spec string, base hop) (hop, error) {
	user, alias, port, err := splitJump(spec)
	if err != nil {
		return hop{}, err
	}
	tok := tokens{alias: alias, user: firstOf(user, cfg.get(alias, "User"), base.tok.user)}
	tok.host = firstOf(expandHostName(cfg.get(alias, "HostName"), alias), alias)
	if port == 0 {
		if port, err = cfg.port(alias); err != nil {
			return hop{}, err
		}
	}
	if port == 0 {
		port = 22
	}
	tok.port = port
	keys := base.keys
	if files := cfg.all(alias, "IdentityFile"); len(files) > 0 {
		keys = keySet{only: base.keys.only}
		for _, f := range files {
			keys.files = append(keys.files, tok.expand(f))
		}
	}
	return hop{user: tok.user, addr: joinHostPort(tok.host, port), tok: tok, keys: keys, hostKeys: base.hostKeys}, nil
}

// configProxy is the ProxyJump, else the ProxyCommand, that ssh_config gives alias.
func configProxy(cfg sshConfig, alias string) ([]string, string, error) {
	if j := cfg.get(alias, "ProxyJump"); j != "" {
		if strings.EqualFold(j, "none") {
			return nil, "", nil
		}
		jumps := strings.Split(j, ",")
		for i := range jumps {
			jumps[i] = strings.TrimPrefix(strings.TrimSpace(jumps[i]), "ssh://")
		}
		return jumps, "", nil
	}
	if c := cfg.get(alias, "ProxyCommand"); c != "" && !strings.EqualFold(c, "none") {
		return nil, c, nil
	}
	return nil, "", nil
}

// splitJump reads `[user@]host[:port]`; port is 0 when not given.
func splitJump(spec string) (user, host string, port int, err error) {
	if i := strings.LastIndex(spec, "@"); i >= 0 {
		user, spec = spec[:i], spec[i+1:]
		if user == "" {
			return "", "", 0, errors.New("empty user: want user@host:port")
		}
	}
	host = spec
	if h, p, err := net.SplitHostPort(spec); err == nil {
		host = h
		if port, err = strconv.Atoi(p); err != nil || port < 1 || port > 65535 {
			return "", "", 0, fmt.Errorf("port %q is not between 1 and 65535", p)
		}
	} else if strings.HasPrefix(spec, "[") && strings.HasSuffix(spec, "]") {
		host = spec[1 : len(spec)-1]
	}
	if host == "" || strings.ContainsAny(host, " /") {
		return "", "", 0, errors.New("want user@host:port")
	}
	return user, host, port, nil
}

// strictMode reads ssh_config's StrictHostKeyChecking; "" (unset) is yes.
func strictMode(v string) (string, error) {
	switch strings.ToLower(v) {
	case "", "yes", "true", "ask":
		return strictYes, nil
	case "accept-new":
		return strictAcceptNew, nil
	case "no", "off", "false":
		return strictNo, nil
	}
	return "", fmt.Errorf("ssh_config: StrictHostKeyChecking %q: want yes, accept-new or no", v)
}

func isYes(v string) bool { return strings.EqualFold(v, "yes") || strings.EqualFold(v, "true") }

// expandHostName expands %h (the name given) in an ssh_config HostName.
func expandHostName(v, alias string) string {
	return strings.ReplaceAll(strings.ReplaceAll(v, "%h", alias), "%%", "%")
}

func joinHostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func localUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}
