package fencefile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The fence's files on a host, all in Dir (mode 0700) unless the caller chooses another folder:
// LockFile is locked for the life of each fenced command, StampFile says by whom, GenFile holds
// the generation announcements (one "key generation" line a key) and GenLockFile guards it.
const (
	Dir         = "/var/lib/kupgrade"
	LockFile    = "fence.lock"
	StampFile   = "fence"
	GenFile     = "fence.gen"
	GenLockFile = "fence.gen.lock"
)

// Version starts every stamp line of this format; a line without it is refused.
const Version = "v2"

// MaxAnnouncements bounds GenFile: the newest keys are kept.
const MaxAnnouncements = 16

// Stamp is what the last fenced command on a host left: whose operation ran it and when. A line
// is "v2 CKSUM cluster key generation owner since until label", CKSUM the POSIX cksum of the
// text after it; Until is when the host stops belonging to Cluster's live operation, by the
// host's clock, unless another of its commands runs first.
type Stamp struct {
	Cluster    string
	Key        string // the operation's id (an upgrade's)
	Generation int64  // the operation's fencing token
	Owner      string
	Since      time.Time // when the command started (host clock, seconds)
	Until      time.Time // Since, or the command's end, plus the claim (host clock, seconds)
	Label      string    // the task's name and the command's digest: never the command
}

// ErrDamaged marks a stamp line that cannot be read: empty, torn or edited by hand.
var ErrDamaged = errors.New("the fence's stamp is damaged (empty, torn or edited by hand)")

// Line is the stamp's line, newline included.
func (s Stamp) Line() string {
	body := fmt.Sprintf("%s %s %d %s %s %d %s", Word(s.Cluster), Word(s.Key), s.Generation, Word(s.Owner),
		s.Since.UTC().Format(time.RFC3339), s.Until.Unix(), oneLine(s.Label))
	return fmt.Sprintf("%s %d %s\n", Version, Cksum([]byte(body)), body)
}

// Parse reads a stamp line (its newline optional); a damaged line is refused with ErrDamaged.
func Parse(line string) (Stamp, error) {
	line = strings.TrimSuffix(line, "\n")
	v, rest, _ := strings.Cut(line, " ")
	ck, body, _ := strings.Cut(rest, " ")
	f := strings.SplitN(body, " ", 7)
	if v != Version || ck != strconv.FormatUint(uint64(Cksum([]byte(body))), 10) || len(f) != 7 {
		return Stamp{}, fmt.Errorf("%w: %q", ErrDamaged, line)
	}
	g, errG := strconv.ParseInt(f[2], 10, 64)
	since, errS := time.Parse(time.RFC3339, f[4])
	until, errU := strconv.ParseInt(f[5], 10, 64)
	if errG != nil || errS != nil || errU != nil || g < 0 {
		return Stamp{}, fmt.Errorf("%w: %q", ErrDamaged, line)
	}
	return Stamp{Cluster: f[0], Key: f[1], Generation: g, Owner: f[3], Since: since, Until: time.Unix(until, 0).UTC(), Label: f[6]}, nil
}

// Word makes s one field of a stamp or announcement line: no blanks, never empty ("-").
func Word(s string) string {
	s = strings.Join(strings.Fields(s), "_")
	if s == "" {
		return "-"
	}
	return s
}

// Label names a fenced command in the stamp without its text: the task's name (at most 80
// bytes) and the first 12 hex digits of the command's SHA-256. A command line may carry a
// secret (a token in a URL, a password argument); its digest does not, and still tells two
// commands apart.
func Label(task, command string) string {
	sum := sha256.Sum256([]byte(command))
	digest := "sha256:" + hex.EncodeToString(sum[:6])
	task = oneLine(task)
	if task == "-" {
		return digest
	}
	if len(task) > 80 {
		task = strings.ToValidUTF8(task[:80], "") + "..."
	}
	return task + " (" + digest + ")"
}

// oneLine is s on one line, blanks collapsed, never empty ("-").
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	return s
}
