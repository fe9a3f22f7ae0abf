package runner

import (
	"errors"
	"github.com/kupgrade/kupgrade/internal/shellword"
	"strconv"
	"strings"
	"time"
)

// Fence is a guard the host itself keeps, so that no two fenced commands ever run on it at the
// same time and a command from an operation that another has since replaced never starts,
// whatever the caller's database, clocks or processes do. When PlayOptions.Fence is set, every
// command and shell task of the play that runs as root (become to root, or remote user root)
// runs under it:
//
//   - the command holds an flock(1) lock on Dir/fence.lock for its whole life: the lock is taken
//     on a file descriptor the command inherits, so it ends with the command (and whatever the
//     command leaves running with that descriptor), even when the caller or its SSH connection
//     dies first;
//   - before it waits, a command announces its Key and Generation in Dir/fence.gen ("key
//     generation", raised, never lowered, under a lock of its own held for an instant), so that
//     a command of an older generation still waiting for the lock (its kupgrade killed, or its
//     lease lost while it waited) learns that a newer operation wants the host;
//   - a command waits up to Wait for the lock, then is refused, naming who holds it;
//   - holding the lock, it reads the stamp Dir/fence that the last fenced command left ("key
//     generation owner start command") and the announcement, and is refused when either has the
//     same Key and a higher Generation: a newer operation owns or wants the host. Otherwise it
//     writes its own stamp (atomically) and runs. A different Key (another upgrade) is accepted.
//
// A refused command never runs: the task fails with the fence's message, and the host error
// wraps ErrFenced. Neither failed_when nor ignore_errors turns that into a success.
type Fence struct {
	Key        string        // what generations are compared within (an upgrade's id)
	Generation int64         // the caller's fencing token: grows with each new owner of Key
	Owner      string        // who runs the command, for people
	Wait       time.Duration // how long a command waits for a busy fence; 0 refuses at once
	Dir        string        // the fence's folder on the host; DefaultFenceDir when empty
}

// The fence's files on a host: FenceLockFile is locked, FenceStampFile says by whom. Both live
// in DefaultFenceDir (mode 0700) unless Fence.Dir says otherwise.
const (
	DefaultFenceDir = "/var/lib/kupgrade"
	FenceLockFile   = "fence.lock"
	FenceStampFile  = "fence"
)

// ErrFenced marks a command the host's fence refused: it did not run.
var ErrFenced = errors.New("refused by the host fence")

// fenceExit is the wrapper's exit status when it refuses (EX_TEMPFAIL), and fencePrefix starts
// its message, the last line of its stderr: both together tell a refusal from a command that
// exits 75 itself.
const (
	fenceExit   = 75
	fencePrefix = "kupgrade fence: "
)

// fenceScript runs as root before the command: $1 folder, $2 wait in seconds, $3 key, $4
// generation, $5 owner, $6 label; the command follows. It holds no single quote, so quote
// keeps it one plain '...' word that sshconn's `exec WORD...` fast path reads as is. The lock's
// descriptor 9 is left open on purpose across the final exec.
const fenceScript = `d=$1 w=$2 k=$3 g=$4 o=$5 l=$6
shift 6
r() { echo "kupgrade fence: $*" >&2; exit 75; }
stamp() { sk= sg= so= st= sl=; [ -f "$d/fence" ] && read -r sk sg so st sl < "$d/fence"; }
announced() { ak= ag=; [ -f "$d/fence.gen" ] && read -r ak ag < "$d/fence.gen"; }
command -v flock >/dev/null 2>&1 || r "flock (util-linux) is missing on this host: no command runs unfenced"
mkdir -p -m 700 "$d" 2>/dev/null || r "cannot create $d"
touch "$d/fence.lock" 2>/dev/null || r "cannot open $d/fence.lock"
exec 8>>"$d/fence.gen.lock" && flock 8 || r "cannot lock $d/fence.gen.lock"
announced
if [ "$ak" != "$k" ] || [ "$g" -gt "$ag" ] 2>/dev/null; then
  printf "%s %s\n" "$k" "$g" > "$d/fence.gen.tmp" && mv -f "$d/fence.gen.tmp" "$d/fence.gen" || r "cannot write $d/fence.gen"
fi
exec 8>&-
exec 9>>"$d/fence.lock"
if ! flock -w "$w" 9; then
  stamp
  r "another kupgrade command is still running on this host (generation ${sg:-?}, owner ${so:-?}, since ${st:-?}: ${sl:-?}); waited ${w}s for it to end: wait for it, then retry"
fi
stamp
if [ "$sk" = "$k" ] && [ "$sg" -gt "$g" ] 2>/dev/null; then
  r "a newer operation (generation $sg, owner $so) owns this host: this kupgrade (generation $g, owner $o) lost its lease and must not start new work"
fi
announced
if [ "$ak" = "$k" ] && [ "$ag" -gt "$g" ] 2>/dev/null; then
  r "a newer operation (generation $ag) is waiting for this host: this kupgrade (generation $g, owner $o) lost its lease and must not start new work"
fi
printf "%s %s %s %s %s\n" "$k" "$g" "$o" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$l" > "$d/fence.tmp" && mv -f "$d/fence.tmp" "$d/fence" || r "cannot write $d/fence"
exec "$@"`

// command returns the command line that runs inner (a script for sh -c) under the fence;
// label says in the stamp what runs.
func (f *Fence) command(inner, label string) string {
	dir := f.Dir
	if dir == "" {
		dir = DefaultFenceDir
	}
	args := []string{dir, strconv.FormatFloat(max(f.Wait, 0).Seconds(), 'f', -1, 64), stampWord(f.Key),
		strconv.FormatInt(f.Generation, 10), stampWord(f.Owner), stampLabel(label), "sh", "-c", inner}
	return "exec sh -c " + quote(fenceScript) + " kupgrade-fence " + shellword.Join(args)
}

// stampWord makes s one field of the stamp's line: no blanks, never empty.
func stampWord(s string) string {
	s = strings.Join(strings.Fields(s), "_")
	if s == "" {
		return "-"
	}
	return s
}

// stampLabel is the start of what runs, on one line: the stamp's last field.
func stampLabel(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return s
}

// commandLabel is the first words of a command, for the stamp.
func commandLabel(argv []string) string {
	return strings.Join(argv[:min(len(argv), 4)], " ")
}

// fenceRefusal reads a refusal from a fenced command's outcome; ok is false when the command
// ran (whatever its status).
func fenceRefusal(o cmdOut) (error, bool) {
	last := o.stderr[strings.LastIndexByte(o.stderr, '\n')+1:]
	if o.rc != fenceExit || !strings.HasPrefix(last, fencePrefix) {
		return nil, false
	}
	return &fenceError{msg: last}, true
}

type fenceError struct{ msg string }

func (e *fenceError) Error() string { return e.msg }
func (e *fenceError) Unwrap() error { return ErrFenced }

// runsAsRoot says whether a task's commands run as root on the host: the only ones the fence
// can guard (its folder is root's), and the only ones that can run kubeadm.
func (m *modCtx) runsAsRoot() bool {
	if m.become {
		return m.becomeUser == "" || m.becomeUser == "root"
	}
	return m.h.host.User() == "root"
}
