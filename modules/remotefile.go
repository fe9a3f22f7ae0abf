package modules

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// What the text-editing modules do on the host: read a file in one command, write it back in
// one command (content on stdin, a temporary file beside the target, renamed over it, so a
// reader never sees half a file) and set mode, owner and group as the file module does.

// remoteText is a file read from the host.
type remoteText struct {
	kind string // "file", "dir" or "absent"
	data []byte
}

const readMark = "kupgrade:read:"

// readRemote reads path (a leading ~ is the host user's home) in one command.
func readRemote(ctx context.Context, m *Task, path string) (remoteText, map[string]any, error) {
	_, rt, fail, err := readRemoteAfter(ctx, m, path, "")
	return rt, fail, err
}

// readRemoteAfter reads path in the command that first runs probe, a script whose output
// (never a line starting with the read mark) is returned as it printed it: a module that needs
// a value from the host besides the file spends one command on both.
func readRemoteAfter(ctx context.Context, m *Task, path, probe string) (string, remoteText, map[string]any, error) {
	script := probe + "\np=" + hostPath(path) + "\n" +
		`if [ -d "$p" ]; then echo ` + readMark + `dir; elif [ -e "$p" ]; then echo ` + readMark + `file && exec cat -- "$p"; else echo ` + readMark + "absent; fi"
	out, err := m.runPlain(ctx, script)
	if err != nil {
		return "", remoteText{}, nil, err
	}
	pre, rest, found := strings.Cut(out.stdout, readMark)
	if !found || out.rc != 0 || (pre != "" && !strings.HasSuffix(pre, "\n")) {
		return "", remoteText{}, commandFailure("read "+path, out), nil
	}
	kind, body, _ := strings.Cut(rest, "\n")
	return pre, remoteText{kind: kind, data: []byte(body)}, nil, nil
}

// attrArgs are the file attributes a module may set: mode, owner, group.
type attrArgs struct {
	mode, symbolic string // mode as stat -c %a prints it, or a symbolic mode
	owner, group   string
}

func readAttrArgs(args map[string]any) (attrArgs, error) {
	mode, symbolic, hasMode, err := argMode(args, "mode")
	if err != nil {
		return attrArgs{}, err
	}
	a := attrArgs{symbolic: symbolic, owner: ArgStr(args, "owner"), group: ArgStr(args, "group")}
	if hasMode && symbolic == "" {
		a.mode = modeText(mode)
	}
	return a, nil
}

func (a attrArgs) any() bool {
	return a.mode != "" || a.symbolic != "" || a.owner != "" || a.group != ""
}

// script is the shell that sets the attributes of "$p", setting $flag to 1 when it changed one;
// with $dry true it only looks. A symbolic mode can only be judged by applying it.
func (a attrArgs) script(flag string) string {
	var b strings.Builder
	if a.symbolic != "" {
		fmt.Fprintf(&b, `if [ -e "$p" ] && ! $dry; then o=$(stat -c %%a "$p"); chmod %s "$p" || exit 1; [ "$(stat -c %%a "$p")" = "$o" ] || %s=1; fi
`, quote(a.symbolic), flag)
	} else if a.mode != "" {
		fmt.Fprintf(&b, `if [ ! -e "$p" ] || [ "$(stat -c %%a "$p")" != %s ]; then $dry || chmod %s "$p" || exit 1; %s=1; fi
`, a.mode, a.mode, flag)
	}
	// An owner or group is a name or, as Ansible also reads it, a number (uid or gid).
	for _, x := range []struct{ v, fmt, cmd string }{{a.owner, "%U %u", "chown"}, {a.group, "%G %g", "chgrp"}} {
		if x.v != "" {
			fmt.Fprintf(&b, `if [ ! -e "$p" ] || ! { set -- $(stat -c '%s' "$p"); [ "$1" = %s ] || [ "$2" = %s ]; }; then $dry || %s %s "$p" || exit 1; %s=1; fi
`, x.fmt, quote(x.v), quote(x.v), x.cmd, quote(x.v), flag)
		}
	}
	return b.String()
}

// validateEnd ends a validate failure's message, which may end with a newline of its own.
const validateEnd = "<kupgrade:end>"

// writeOpts is what writeRemote writes: data (nil to leave the content alone), a backup of the
// old file first, a validate command (%s is the new file) that must pass before the rename.
type writeOpts struct {
	data     []byte
	backup   bool
	validate string
	attrs    attrArgs
}

// writeRemote replaces path's content and sets its attributes in one command; an existing file
// keeps its mode and owner, a new one gets 0666 less the umask, as Ansible's atomic_move. In
// check mode it only looks at the attributes. It returns the backup's name (a copy named
// PATH.PID.DATE@TIME~ as Ansible names it) and whether an attribute changed.
func writeRemote(ctx context.Context, m *Task, path string, w writeOpts) (string, bool, map[string]any, error) {
	data, attrs := w.data, w.attrs
	if data == nil && !attrs.any() {
		return "", false, nil, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "p=%s; dry=%t; a=0\n", hostPath(path), m.Check)
	if data != nil && !m.Check {
		b.WriteString(`if [ -e "$p" ]; then r=$(readlink -f -- "$p") || exit 1; else r=$p; mkdir -p -- "$(dirname -- "$r")" || exit 1; fi
d=$(dirname -- "$r")
`)
		if w.backup {
			b.WriteString(`if [ -e "$r" ]; then k="$p.$$.$(date +%Y-%m-%d@%H:%M:%S~)"; cp -p -- "$r" "$k" || exit 1; echo "backup=$k"; fi
`)
		}
		b.WriteString(`t=$(mktemp "$d/.kupgrade.XXXXXX") || exit 1
if ! cat > "$t"; then rm -f -- "$t"; exit 1; fi
`)
		if w.validate != "" {
			// stderr alone, its last newline kept (the . guards it), as Ansible's message has it.
			fmt.Fprintf(&b, "v=$( (%s) 2>&1 >/dev/null; r=$?; echo .; exit $r); rc=$?; v=${v%%.}\n"+
				"if [ $rc != 0 ]; then rm -f -- \"$t\"; printf 'failed to validate: rc:%%s error:%%s%s' $rc \"$v\" >&2; exit 1; fi\n",
				strings.ReplaceAll(w.validate, "%s", `"$t"`), validateEnd)
		}
		b.WriteString(`if [ -e "$r" ]; then chmod --reference="$r" "$t"; chown --reference="$r" "$t" 2>/dev/null
else chmod "$(printf %o $((0666 & ~0$(umask))))" "$t"; fi
mv -f -- "$t" "$r" || { rm -f -- "$t"; exit 1; }
`)
	}
	if data != nil && m.Check {
		b.WriteString(`[ -e "$p" ] || exit 0` + "\n")
	}
	b.WriteString(attrs.script("a"))
	b.WriteString(`echo "attrs=$a"`)
	out, err := m.send(ctx, Wrap(b.String(), nil, m.Become, m.BecomeUser), bytes.NewReader(data))
	if err != nil {
		return "", false, nil, err
	}
	if out.rc != 0 {
		r := commandFailure("write "+path, out)
		r["msg"] = fmt.Sprintf("write %s: %s", path, strings.TrimSpace(out.stderr))
		if i := strings.Index(out.stderr, "failed to validate:"); i >= 0 {
			msg, _, _ := strings.Cut(out.stderr[i:], validateEnd)
			r = Failure(msg) // Ansible's own words, and no rc
		}
		return "", false, r, nil
	}
	var bk string
	for l := range strings.SplitSeq(out.stdout, "\n") {
		if v, ok := strings.CutPrefix(l, "backup="); ok {
			bk = v
		}
	}
	return bk, strings.Contains(out.stdout, "attrs=1"), nil, nil
}

// attrMsg adds Ansible's note on changed attributes to msg.
func attrMsg(msg string, changed, attrs bool) (string, bool) {
	if !attrs {
		return msg, changed
	}
	if changed {
		msg += " and "
	}
	return msg + "ownership, perms or SE linux context changed", true
}
