package runner

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/internal/fencefile"
	"github.com/kupgrade/kupgrade/internal/shellword"
)

// Fence is a guard the host itself keeps, so that no two fenced commands ever run on it at the
// same time, a command from an operation that another has since replaced never starts, and a
// command of one cluster's operation never runs on a host a live operation of another cluster
// holds, whatever the caller's database, clocks or processes do. When PlayOptions.Fence is set,
// every command and shell task of the play that runs as root (become to root, or remote user
// root) runs under it. The files' format is internal/fencefile's.
//
//   - a wrapper holds an flock(1) lock on Dir/fence.lock for the command's whole life and runs
//     the command with the lock's descriptor closed: a daemon the command leaves running (a
//     kubelet started with &) does not keep the host locked. A TERM, INT or HUP the wrapper gets
//     is passed on to the command, and the wrapper keeps the lock until the command has ended;
//   - before it waits, a command announces its Key and Generation in Dir/fence.gen (one line a
//     key, raised, never lowered, under a lock of its own held for an instant), so that a
//     command of an older generation still waiting for the lock (its kupgrade killed, or its
//     lease lost while it waited) learns that a newer operation wants the host;
//   - a command waits up to Wait for the lock, then is refused, naming who holds it;
//   - holding the lock, it reads the stamp Dir/fence that the last fenced command left and the
//     announcement of its Key, and is refused when the stamp cannot be read (empty, torn or
//     edited by hand), when either has the same Key and a higher Generation (a newer operation
//     owns or wants the host), or when the stamp's claim is live (its command ended less than
//     Claim ago, or this command had to wait for it) and the stamp is of another cluster, or of
//     another upgrade of this cluster that this Database did not record: one cluster, one
//     upgrade, whatever the database. A cluster is told by its ClusterUID when both sides know
//     it (another inventory's name for the same cluster is the same cluster), else by its name;
//     a stamp that names no database (an older kupgrade's) is another database's. The refusal
//     names the other upgrade, its runner and its database. Another Key of the same cluster and
//     the same Database (a new upgrade of the one database that orders them) is accepted, and
//     so is any stamp whose claim has passed: a dead runner's host is taken over. Otherwise it
//     stamps the host (atomically) with its cluster and UID, key, generation, owner and
//     database, and a label (the task's name and the command's digest, never its text), runs,
//     and stamps again when the command ends, so that the claim runs from the end.
//
// A refused command never runs: the task fails with the fence's message, and the host error
// wraps ErrFenced. Neither failed_when nor ignore_errors turns that into a success.
type Fence struct {
	Cluster    string        // whose operation runs: the host is refused to other clusters' commands meanwhile
	ClusterUID string        // the cluster's own identity (its kube-system namespace's UID); "" when unknown
	Database   string        // where Key's operation is recorded (state.DSN.Identity); "" when unknown
	Key        string        // what generations are compared within (an upgrade's id)
	Generation int64         // the caller's fencing token: grows with each new owner of Key
	Owner      string        // who runs the command, for people
	Wait       time.Duration // how long a command waits for a busy fence; 0 refuses at once
	Claim      time.Duration // how long the host stays Cluster's after a command ends (a lease's TTL)
	Dir        string        // the fence's folder on the host; fencefile.Dir when empty
}

// The fence's files on a host (fencefile's names, kept here for the runner's callers).
const (
	DefaultFenceDir = fencefile.Dir
	FenceLockFile   = fencefile.LockFile
	FenceStampFile  = fencefile.StampFile
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

// Command returns the command line that runs inner (a script for sh -c) under the fence; label
// names it in the stamp (fencefile.Label). It makes *Fence a modules.Fence.
func (f *Fence) Command(inner, label string) string {
	dir := f.Dir
	if dir == "" {
		dir = DefaultFenceDir
	}
	claim := int64(math.Ceil(max(f.Claim, 0).Seconds()))
	args := []string{dir, strconv.FormatFloat(max(f.Wait, 0).Seconds(), 'f', -1, 64), fencefile.ClusterField(f.Cluster, f.ClusterUID),
		fencefile.Word(f.Key), strconv.FormatInt(max(f.Generation, 0), 10), fencefile.OwnerField(f.Owner, f.Database),
		strconv.FormatInt(claim, 10), label, "sh", "-c", inner}
	return "exec sh -c " + shellword.Quote(fenceScript) + " kupgrade-fence " + shellword.Join(args)
}

// Refusal reads a refusal from a fenced command's exit status and stderr, an error wrapping
// ErrFenced; nil when the command ran (whatever its status).
func (f *Fence) Refusal(rc int, stderr string) error {
	last := stderr[strings.LastIndexByte(stderr, '\n')+1:]
	if rc != fenceExit || !strings.HasPrefix(last, fencePrefix) {
		return nil
	}
	return &fenceError{msg: last}
}

type fenceError struct{ msg string }

func (e *fenceError) Error() string { return e.msg }
func (e *fenceError) Unwrap() error { return ErrFenced }

// runsAsRoot says whether a task's commands run as root on the host: the only ones the fence
// can guard (its folder is root's), and the only ones that can run kubeadm.
func runsAsRoot(become bool, becomeUser, remoteUser string) bool {
	if become {
		return becomeUser == "" || becomeUser == "root"
	}
	return remoteUser == "root"
}
