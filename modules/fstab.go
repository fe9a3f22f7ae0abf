package modules

import (
	"slices"
	"strings"
)

// The fstab halves of mount (ansible.posix.mount on Linux): the lines Ansible writes for a
// mount point, byte for byte, and the lines it removes.

// mountArgs are mount's arguments as Ansible completes them (the defaults, noauto when boot is
// off); the fstab fields are kept unescaped here.
type mountArgs struct {
	name, src, fstype, opts, dump, passno, fstab, boot string
	hasSrc                                             bool
	warnings                                           []any
}

// escapeFstab is Ansible's _escape_fstab: backslash, space and ampersand as octal escapes.
func escapeFstab(v string) string {
	return strings.NewReplacer(`\`, `\134`, " ", `\040`, "&", `\046`).Replace(v)
}

// fstabLines is Python's readlines in text mode.
func fstabLines(data []byte) []string {
	s := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	return readLines([]byte(s))
}

// isFstabEntry says whether a line may name a mount point: not blank, not a comment.
func isFstabEntry(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && !strings.HasPrefix(t, "#")
}

// otherMount says whether an entry is not the one a names: another mount point, or another
// swap device when src is given.
func (a mountArgs) otherMount(f []string) bool {
	return f[1] != escapeFstab(a.name) || a.hasSrc && f[1] == "none" && f[2] == "swap" && f[0] != a.src
}

// setFstab is Ansible's _set_mount_save_old: a's line replaces the fields of its entries that
// differ, or is added at the end.
func setFstab(data []byte, a mountArgs) (string, bool) {
	want := []string{escapeFstab(a.src), escapeFstab(a.name), escapeFstab(a.fstype), escapeFstab(a.opts), escapeFstab(a.dump), escapeFstab(a.passno)}
	var out []string
	exists, changed := false, false
	for _, line := range fstabLines(data) {
		if !strings.HasSuffix(line, "\n") {
			line += "\n"
		}
		f := strings.Fields(line)
		if !isFstabEntry(line) || len(f) < 4 || len(f) > 6 || a.otherMount(f) {
			out = append(out, line)
			continue
		}
		exists = true
		ld := append(slices.Clone(f), make([]string, 6-len(f))...)
		for _, i := range []int{0, 2, 3, 4, 5} {
			if i >= len(f) || ld[i] != want[i] { // a missing dump or passno is Python's 0, never "0"
				ld[i], changed = want[i], true
			}
		}
		if changed {
			line = strings.Join(ld, " ") + "\n"
		}
		out = append(out, line)
	}
	if !exists {
		out, changed = append(out, strings.Join(want, " ")+"\n"), true
	}
	return strings.Join(out, ""), changed
}

// unsetFstab is Ansible's unset_mount: a's entries (six fields each) removed.
func unsetFstab(data []byte, a mountArgs) (string, bool) {
	var out []string
	changed := false
	for _, line := range fstabLines(data) {
		f := strings.Fields(line)
		if !isFstabEntry(line) || len(f) != 6 || a.otherMount(f) {
			out = append(out, line)
			continue
		}
		changed = true
	}
	return strings.Join(out, ""), changed
}
