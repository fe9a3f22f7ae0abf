package modules

import (
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// quote makes s one POSIX shell word, bare when it needs no quotes (shellword.Quote). The
// modules' scripts quote many values; the short name keeps them readable.
func quote(s string) string { return shellword.Quote(s) }

// Wrap turns a script into the command line sent to the host: environment first (inside sudo, so
// sudo's env_reset cannot drop it), then become. Each wrapper is exec-ed, as sh -c would do with
// a last command anyway; sshconn runs such an `exec WORD...` line without a shell of its own.
func Wrap(script string, env map[string]string, become bool, user string) string {
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
// own, or the pty session's with use_pty, so kill 0 reaches the script's children too. The
// script's stdin is the guard's through fd 3: dash gives a background command /dev/null even
// when it says <&0, so command's stdin and the content the edit modules send would be lost.
const becomeGuard = `z() { trap "" TERM INT HUP; kill -TERM 0; n=0; ` +
	`while [ $n -lt 10 ] && kill -0 $c 2>/dev/null; do sleep 0.1 2>/dev/null || { sleep 1; n=9; }; n=$((n+1)); done; ` +
	`kill -KILL 0; }; trap z TERM INT HUP; exec 3<&0; sh -c "$1" <&3 3<&- & c=$!; wait $c`
