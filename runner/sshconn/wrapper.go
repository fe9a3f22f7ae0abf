package sshconn

import (
	"crypto/rand"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// wrapper is the POSIX sh program every command runs under; $1 is the command, $2 is "l" when
// the channel's stdin is a lifeline (the command reads /dev/null) or else the path of a
// folder whose removal means "stop" (the channel's stdin is then the command's input). OpenSSH delivers signals to the process it started at best (and refuses
// them for root logins before 9.8), and never kills anything when a channel or connection
// closes, so the wrapper does it:
//
//   - the command runs under setsid, in a process group of its own that can be killed whole,
//     and outside the wrapper's group, so sudo relays signals the wrapper sends it;
//   - TERM, INT or HUP sent to the wrapper go to that group;
//   - a watchdog kills the group (TERM, then KILL once the command has ended or a second has
//     passed) when, in "l" mode, stdin
//     reaches its end: the client cancelled, closed the session or lost the connection; else,
//     polling each second, when the stop folder was removed (the client cancelled, through
//     another session), the wrapper was killed or its parent sshd is gone (connection lost);
//   - the wrapper exits with the command's status and leaves the command's own background
//     processes alone when it ends normally.
//
// It contains no single quote, so shellword.Quote keeps it as is.
const wrapper = `exec 3<&0
if [ "$2" = l ]; then exec 4</dev/null; else exec 4<&0; mkdir -m 700 "$2" || exit 125; fi
if command -v setsid >/dev/null 2>&1; then setsid sh -c "$1" <&4 3<&- 4<&- &
else sh -c "$1" <&4 3<&- 4<&- & fi
c=$! p=$$ pp=$PPID
k() { kill -$1 -$c 2>/dev/null || kill -$1 $c 2>/dev/null; }
z() { if kill -0 $c 2>/dev/null; then ` + stopGroup + `; fi; }
if [ "$2" = l ]; then
(trap - TERM INT HUP; while read -r _; do :; done; z) <&3 >/dev/null 2>&1 4<&- &
else
(trap - TERM INT HUP
while [ -d "$2" ] && kill -0 $c 2>/dev/null && kill -0 $p 2>/dev/null && kill -0 $pp 2>/dev/null; do sleep 1; done
z; rmdir "$2") </dev/null >/dev/null 2>&1 3<&- 4<&- &
fi
exec 3<&- 4<&-
trap "k TERM" TERM
trap "k INT" INT
trap "k HUP" HUP
wait $c; s=$?
while kill -0 $c 2>/dev/null; do wait $c; s=$?; done
[ "$2" = l ] || rmdir "$2" 2>/dev/null
exit $s`

// stopGroup is the sh code with which the wrapper and the agent stop the command $c and its
// process group: TERM, then KILL once $c has ended or a second has passed (checked every tenth
// of a second where sleep takes fractions).
const stopGroup = `kill -TERM -$c 2>/dev/null || kill -TERM $c 2>/dev/null; n=0
while [ $n -lt 10 ] && kill -0 $c 2>/dev/null; do sleep 0.1 2>/dev/null || { sleep 1; n=9; }; n=$((n+1)); done
kill -KILL -$c 2>/dev/null || kill -KILL $c 2>/dev/null`

// wrap returns the command line sent to the server: the wrapper under `sh -c`, cmd as $1, and
// the stop folder (see wrapper) or "l" as $2.
func wrap(cmd, stopDir string) string {
	if stopDir == "" {
		stopDir = "l"
	}
	return "exec sh -c " + shellword.Quote(wrapper) + " kupgrade " + shellword.Quote(cmd) + " " + shellword.Quote(stopDir)
}

// stopDir names a fresh stop folder for a command that reads the client's stdin. A folder,
// not a file: mkdir neither follows symbolic links nor succeeds twice.
func stopDir() string { return "/tmp/kupgrade-run." + rand.Text() }
