package runner

import (
	"errors"
	"slices"
	"strings"
)

// quote returns s as one word for a POSIX shell. Words made only of safe characters are left
// bare so the commands that people read in logs stay readable.
func quote(s string) string {
	if s != "" && strings.IndexFunc(s, unsafeRune) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func unsafeRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("_-./:=@%+,", r)
}

// wrap turns a script into the command line sent to the host: environment first (inside sudo, so
// sudo's env_reset cannot drop it), then become. Each wrapper is exec-ed, as sh -c would do with
// a last command anyway; sshconn runs such an `exec WORD...` line without a shell of its own.
func wrap(script string, env map[string]string, become bool, user string) string {
	return withBecome(withEnv(script, env), become, user)
}

// withEnv sets env for script.
func withEnv(script string, env map[string]string) string {
	if len(env) == 0 {
		return script
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("exec env")
	for _, k := range keys {
		b.WriteByte(' ')
		b.WriteString(quote(k + "=" + env[k]))
	}
	b.WriteString(" sh -c ")
	b.WriteString(quote(script))
	return b.String()
}

// withBecome runs script as user (root when empty) through sudo when become.
func withBecome(script string, become bool, user string) string {
	if !become {
		return script
	}
	if user == "" {
		user = "root"
	}
	return "exec sudo -n -u " + quote(user) + " -- sh -c " + quote(becomeGuard) + " sh " + quote(script)
}

// becomeGuard runs the script ($1) under sudo and, when sudo relays TERM, INT or HUP to it,
// passes the signal on to everything the script started, with KILL for what is left once the
// script has ended or a second has passed. The login user's own kill cannot reach the root
// processes the script starts, and sudo signals only the guard; its process group is sudo's
// own, or the pty session's with use_pty, so kill 0 reaches the script's children too.
const becomeGuard = `z() { trap "" TERM INT HUP; kill -TERM 0; n=0; ` +
	`while [ $n -lt 10 ] && kill -0 $c 2>/dev/null; do sleep 0.1 2>/dev/null || { sleep 1; n=9; }; n=$((n+1)); done; ` +
	`kill -KILL 0; }; trap z TERM INT HUP; sh -c "$1" <&0 & c=$!; wait $c`

var errUnterminated = errors.New("unterminated quote")

// splitWords splits a command line with the shell's quoting rules (single quotes, double quotes
// with backslash escapes, backslash outside quotes) and nothing else: no variables, globs,
// pipes or redirections, as Ansible's command module.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errUnterminated
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errUnterminated
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					cur.WriteByte(s[i])
				}
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func joinQuoted(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quote(a))
	}
	return b.String()
}
