package inventory

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// proxyJump finds the jump hosts in ssh arguments: `-o ProxyJump=a,b`, `-oProxyJump=a`,
// `-o "ProxyJump a"`, `-J a,b` and `-Ja`. The last one given wins, as with ssh. A ProxyCommand is
// an error: kupgrade cannot run it, and ignoring it would connect straight to the host.
func proxyJump(args string) ([]string, error) {
	words, err := shellword.Split(args)
	if err != nil {
		return nil, err
	}
	var jumps []string
	found := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		var val string
		switch {
		case w == "-J" || w == "-o":
			if i+1 >= len(words) {
				return nil, fmt.Errorf("%s needs a value", w)
			}
			i++
			val = words[i]
			if w == "-J" {
				val = "ProxyJump=" + val
			}
		case strings.HasPrefix(w, "-J"):
			val = "ProxyJump=" + w[2:]
		case strings.HasPrefix(w, "-o"):
			val = w[2:]
		default:
			continue
		}
		key, value, _ := strings.Cut(strings.TrimSpace(val), "=")
		if k, v, ok := strings.Cut(key, " "); ok && value == "" {
			key, value = k, v // ssh_config also accepts "Key value"
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "proxyjump":
			if jumps, err = parseJumps(strings.TrimSpace(value)); err != nil {
				return nil, err
			}
			found = true
		case "proxycommand":
			return nil, errors.New("ProxyCommand is not supported, only ProxyJump")
		}
	}
	if !found {
		return nil, nil
	}
	return jumps, nil
}

func parseJumps(value string) ([]string, error) {
	if value == "" {
		return nil, errors.New("ProxyJump is empty")
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
