package inventory

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// SSHOptions are the ssh options of a host's ansible_ssh_common_args and ansible_ssh_extra_args
// that kupgrade honours. As with ssh, the first value given wins (common args come first), except
// IdentityFile, of which every one is offered in order. A field left empty was not given.
type SSHOptions struct {
	ConfigFile     string   // -F: the ssh_config to read instead of ~/.ssh/config ("none" for none)
	HostName       string   // -o HostName
	User           string   // -l, -o User
	Port           int      // -p, -o Port
	IdentityFiles  []string // -i, -o IdentityFile, ~ not yet expanded
	IdentitiesOnly string   // -o IdentitiesOnly: yes or no
	// Proxy is set by the first ProxyJump (-J) or ProxyCommand: they exclude each other, as in ssh.
	ProxySet     bool
	ProxyJump    []string // [user@]host[:port] each; nil with ProxySet and no command means "none"
	ProxyCommand string   // run by sh -c, its stdin and stdout are the connection
	// StrictHostKeyChecking is yes, accept-new or no (ask is yes: kupgrade never asks).
	StrictHostKeyChecking string
	KnownHostsFiles       []string // -o UserKnownHostsFile, space-separated files
}

// ignoredSSHOptions change nothing kupgrade's transport does, or only how ssh itself manages its
// connections (kupgrade keeps one connection per host for the run in any case).
var ignoredSSHOptions = map[string]bool{
	"controlmaster": true, "controlpersist": true, "controlpath": true,
	"serveraliveinterval": true, "serveralivecountmax": true, "tcpkeepalive": true,
	"connecttimeout": true, "connectionattempts": true, "compression": true, "loglevel": true,
	"preferredauthentications": true, "passwordauthentication": true, "kbdinteractiveauthentication": true,
	"challengeresponseauthentication": true, "gssapiauthentication": true, "gssapidelegatecredentials": true,
	"pubkeyauthentication": true, "batchmode": true, "checkhostip": true, "hashknownhosts": true,
	"visualhostkey": true, "updatehostkeys": true, "addkeystoagent": true, "addressfamily": true,
	"forwardx11": true, "forwardx11trusted": true, "requesttty": true, "hostkeyalgorithms": true,
	"pubkeyacceptedkeytypes": true, "pubkeyacceptedalgorithms": true, "ciphers": true, "macs": true,
	"kexalgorithms": true, "globalknownhostsfile": true, "escapechar": true,
}

// ignoredSSHFlags are ssh's flags without a value that change nothing for kupgrade (address
// family, compression, verbosity, tty, X11); ssh flags taking a value are in sshFlagsWithValue.
const (
	ignoredSSHFlags   = "46CqvTtnxXYak"
	sshFlagsWithValue = "BbcDEeFIiJLlmOopQRSWw"
)

// ParseSSHArgs reads ssh command-line arguments as Ansible passes them: -o Key=Value (or
// "Key Value"), -J, -i, -p, -l, -F and the harmless flags. Anything else is an error naming it.
func ParseSSHArgs(args string, into *SSHOptions) error {
	words, err := shellword.Split(args)
	if err != nil {
		return err
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if len(w) < 2 || w[0] != '-' || w[1] == '-' {
			return fmt.Errorf("ssh argument %q is not supported by kupgrade (only options are)", w)
		}
		for j := 1; j < len(w); j++ {
			flag := w[j]
			if strings.IndexByte(ignoredSSHFlags, flag) >= 0 {
				continue
			}
			if strings.IndexByte(sshFlagsWithValue, flag) < 0 {
				return fmt.Errorf("ssh option -%c is not supported by kupgrade", flag)
			}
			val := w[j+1:]
			if val == "" {
				if i+1 >= len(words) {
					return fmt.Errorf("ssh option -%c needs a value", flag)
				}
				i++
				val = words[i]
			}
			if err := into.flag(flag, val); err != nil {
				return err
			}
			break
		}
	}
	return nil
}

// flag applies one ssh flag that takes a value.
func (o *SSHOptions) flag(flag byte, val string) error {
	switch flag {
	case 'o':
		key, value, _ := strings.Cut(strings.TrimSpace(val), "=")
		if k, v, ok := strings.Cut(key, " "); ok && value == "" {
			key, value = k, v // ssh_config also accepts "Key value"
		}
		return o.option(strings.TrimSpace(key), strings.TrimSpace(value))
	case 'F':
		if o.ConfigFile == "" {
			o.ConfigFile = val
		}
		return nil
	case 'i':
		return o.option("IdentityFile", val)
	case 'J':
		return o.option("ProxyJump", val)
	case 'l':
		return o.option("User", val)
	case 'p':
		return o.option("Port", val)
	case 'E', 'e', 'S': // log file, escape character, control socket: nothing changes for kupgrade
		return nil
	}
	return fmt.Errorf("ssh option -%c is not supported by kupgrade", flag)
}

// option applies one -o Key=Value.
func (o *SSHOptions) option(key, value string) error {
	lower := strings.ToLower(key)
	if ignoredSSHOptions[lower] {
		return nil
	}
	switch lower {
	case "user":
		o.User = first(o.User, value)
	case "hostname":
		o.HostName = first(o.HostName, value)
	case "port":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("ssh option Port=%s: want a port from 1 to 65535", value)
		}
		if o.Port == 0 {
			o.Port = n
		}
	case "identityfile":
		o.IdentityFiles = append(o.IdentityFiles, value)
	case "identitiesonly", "stricthostkeychecking", "forwardagent":
		return o.yesNo(lower, key, value)
	case "userknownhostsfile":
		if o.KnownHostsFiles == nil {
			o.KnownHostsFiles = strings.Fields(value)
		}
	case "proxyjump":
		return o.proxyJump(value)
	case "proxycommand":
		if !o.ProxySet {
			o.ProxySet = true
			if !strings.EqualFold(value, "none") {
				o.ProxyCommand = value
			}
		}
	default:
		return fmt.Errorf("ssh option %s is not supported by kupgrade", key)
	}
	return nil
}

// yesNo reads the options whose value is one of a few words.
func (o *SSHOptions) yesNo(lower, key, value string) error {
	v := strings.ToLower(value)
	switch v {
	case "true":
		v = "yes"
	case "false", "off":
		v = "no"
	case "ask":
		v = "yes" // kupgrade never asks: an unknown key is refused, as with yes
	}
	switch {
	case lower == "forwardagent" && v == "no":
		return nil
	case lower == "identitiesonly" && (v == "yes" || v == "no"):
		o.IdentitiesOnly = first(o.IdentitiesOnly, v)
		return nil
	case lower == "stricthostkeychecking" && (v == "yes" || v == "no" || v == "accept-new"):
		o.StrictHostKeyChecking = first(o.StrictHostKeyChecking, v)
		return nil
	case lower == "stricthostkeychecking":
		return fmt.Errorf("ssh option StrictHostKeyChecking=%s: want yes, accept-new or no", value)
	}
	return fmt.Errorf("ssh option %s=%s is not supported by kupgrade", key, value)
}

func (o *SSHOptions) proxyJump(value string) error {
	jumps, err := parseJumps(value)
	if err != nil {
		return err
	}
	if !o.ProxySet {
		o.ProxySet, o.ProxyJump = true, jumps
	}
	return nil
}

func first(have, value string) string {
	if have != "" {
		return have
	}
	return value
}

func parseJumps(value string) ([]string, error) {
	if value == "" {
		return nil, fmt.Errorf("ProxyJump is empty")
	}
	if strings.EqualFold(value, "none") {
		return nil, nil
	}
	var out []string
	for _, j := range strings.Split(value, ",") {
		j = strings.TrimPrefix(strings.TrimSpace(j), "ssh://")
		if err := checkJump(j); err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// checkJump accepts [user@]host[:port], with host a name, an IPv4 address or [an IPv6 one].
func checkJump(j string) error {
	hostport := j
	if i := strings.LastIndex(j, "@"); i >= 0 {
		if i == 0 {
			return fmt.Errorf("jump host %q has an empty user", j)
		}
		hostport = j[i+1:]
	}
	host, port := hostport, ""
	if strings.HasPrefix(hostport, "[") {
		end := strings.Index(hostport, "]")
		if end < 0 {
			return fmt.Errorf("jump host %q has an unclosed [", j)
		}
		host, port = hostport[1:end], strings.TrimPrefix(hostport[end+1:], ":")
	} else if h, p, ok := strings.Cut(hostport, ":"); ok {
		host, port = h, p
	}
	if host == "" || strings.ContainsAny(host, " \t/") {
		return fmt.Errorf("jump host %q has no valid host name", j)
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("jump host %q has a bad port %q", j, port)
		}
	}
	return nil
}
