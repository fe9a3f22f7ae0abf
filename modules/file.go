package modules

import (
	"context"
	"fmt"
	"strings"
)

// modFile sets a path's state (file, directory, absent, touch, link, hard) and attributes in
// one command that prints whether it changed anything; in check mode the same script only
// looks. The states' rules and messages are those of ansible-core's file module.
func modFile(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	p := ArgStr(args, "path")
	if p == "" {
		return Failure("file: path is required"), nil
	}
	// Without state, Ansible keeps the path's current kind (a folder stays one) and only sets
	// attributes; state: file insists on a file.
	state, explicit := ArgStr(args, "state"), args["state"] != nil
	if state == "" {
		state = "file"
	}
	attrs, err := readAttrArgs(args)
	if err != nil {
		return Failure("file: " + err.Error()), nil
	}
	src := ArgStr(args, "src")
	if (state == "link" || state == "hard") && src == "" {
		return Failure(fmt.Sprintf("src is required for creating new %ss", map[string]string{"link": "symlink", "hard": "hardlink"}[state])), nil
	}
	body, ok := fileStateScripts[state]
	if !ok {
		return Failure(fmt.Sprintf("file: unsupported state %q (file, directory, absent, touch, link, hard)", state)), nil
	}
	script := fmt.Sprintf("p=%s; s=%s; c=0; dry=%t; force=%t; explicit=%t\n", hostPath(p), hostPath(src), m.Check,
		argBool(args, "force", false), explicit)
	if state == "directory" && argBool(args, "recurse", false) {
		script += fileScript(m.Diff, body, recurseAttrs(attrs))
	} else {
		script += fileScript(m.Diff, body, attrs.script("c"))
	}
	out, err := m.runPlain(ctx, script)
	if err != nil {
		return nil, err
	}
	if out.rc != 0 {
		r := commandFailure("file "+p, out)
		r["msg"] = LastLine(out.stderr)
		r["path"] = p
		return r, nil
	}
	res := map[string]any{"changed": strings.Contains(out.stdout, "changed=1"), "path": p, "state": state}
	if st := markedState(out.stdout); st != "" {
		res["state"] = st
	}
	if state == "link" || state == "hard" {
		res["dest"], res["src"] = p, src
	}
	if m.Diff && !(m.Check && state == "touch") { // Ansible's touch says nothing in check mode
		res["diff"] = fileDiff(out.stdout, p, ArgStr(res, "state"), src, attrs)
	}
	return res, nil
}

// fileScript is the file module's script after its variables: the path's kind, the state's
// body, then the attributes; under diff it also prints what the diff reports of the path before.
func fileScript(diff bool, body, attrs string) string {
	if !diff {
		return prevState + body + attrs + `echo "changed=$c"`
	}
	return prevState + diffPrevState + body + diffPrevMode + attrs + `echo "changed=$c"`
}

// markedState is the kind the file state found ("state=directory"), "" when it printed none.
func markedState(out string) string {
	for l := range strings.SplitSeq(out, "\n") {
		if st, ok := strings.CutPrefix(l, "state="); ok {
			return st
		}
	}
	return ""
}

// prevState is Ansible's get_state: absent, link, directory, hard (a file of several links) or file.
const prevState = `if [ -h "$p" ]; then ps=link; elif [ -d "$p" ]; then ps=directory; elif [ -e "$p" ]; then ps=file; [ "$(stat -c %h -- "$p")" -gt 1 ] && ps=hard; else ps=absent; fi
`

var fileStateScripts = map[string]string{
	"directory": `case $ps in absent) c=1; $dry || mkdir -p -- "$p" || exit 1;; directory) ;;
  link) [ -d "$p" ] || { echo "$p already exists as a link" >&2; exit 1; };;
  *) echo "$p already exists as a $ps" >&2; exit 1;; esac
`,
	"absent": `if [ $ps != absent ]; then $dry || rm -rf -- "$p" || exit 1; c=1; fi
echo "changed=$c"; exit 0
`,
	"touch": `$dry || touch -- "$p" || exit 1; c=1
`,
	"file": `if [ $ps = link ] && [ -f "$p" ]; then :
elif [ $ps = absent ] || { $explicit && [ $ps != file ] && [ $ps != hard ]; }; then echo "file ($p) is $ps, cannot continue" >&2; exit 1; fi
echo "state=$ps"
`,
	"link": `case "$s" in /*) a=$s;; *) if [ $ps = directory ]; then a="$p/$s"; else a="$(dirname -- "$p")/$s"; fi;; esac
if ! $force && [ ! -e "$a" ]; then echo "src file does not exist, use \"force=yes\" if you really want to create the link: $a" >&2; exit 1; fi
case $ps in
directory) $force || { echo "refusing to convert from directory to symlink for $p" >&2; exit 1; }
  [ -z "$(ls -A -- "$p")" ] || { echo "the directory $p is not empty, refusing to convert it" >&2; exit 1; };;
file|hard) $force || { echo "refusing to convert from $ps to symlink for $p" >&2; exit 1; };;
esac
if [ $ps != link ] || [ "$(readlink -- "$p")" != "$s" ]; then c=1
  if ! $dry && [ $ps = absent ]; then ln -s -- "$s" "$p" || exit 1
  elif ! $dry; then t="$(dirname -- "$p")/.kupgrade.$$.tmp"
    if [ $ps = directory ]; then rmdir -- "$p" || exit 1; fi
    ln -s -- "$s" "$t" && mv -Tf -- "$t" "$p" || { rm -f -- "$t"; exit 1; }
  fi
fi
[ -e "$p" ] || { echo "changed=$c"; exit 0; }
`,
	"hard": `[ -e "$s" ] || { echo "src does not exist" >&2; exit 1; }
case $ps in
absent) c=1;;
link) [ "$(readlink -- "$p")" = "$s" ] || c=1;;
directory) echo "Cannot link, directory exists at destination" >&2; exit 1;;
*) if [ "$(stat -L -c %d:%i -- "$p")" != "$(stat -L -c %d:%i -- "$s")" ]; then c=1
    $force || { if [ $ps = hard ]; then echo "Cannot link, different hard link exists at destination" >&2; else echo "Cannot link, file exists at destination" >&2; fi; exit 1; }
  fi;;
esac
if [ $c = 1 ] && ! $dry; then
  if [ $ps = absent ]; then ln -- "$s" "$p" || exit 1
  else t="$(dirname -- "$p")/.kupgrade.$$.tmp"; ln -- "$s" "$t" && mv -f -- "$t" "$p" || { rm -f -- "$t"; exit 1; }; fi
fi
`,
}

// recurseAttrs sets mode, owner and group on "$p" and everything below it (directory with
// recurse): it compares a listing of every entry's attributes before and after; in check mode
// find says whether any entry differs.
func recurseAttrs(a attrArgs) string {
	if !a.any() {
		return ""
	}
	var look, set []string
	if a.mode != "" {
		look = append(look, "! -perm "+a.mode)
		set = append(set, "chmod -R "+a.mode+` -- "$p"`)
	} else if a.symbolic != "" {
		set = append(set, "chmod -R "+quote(a.symbolic)+` -- "$p"`)
	}
	for _, x := range []struct{ v, test, cmd string }{{a.owner, "-user", "chown"}, {a.group, "-group", "chgrp"}} {
		if x.v != "" {
			look = append(look, "! "+x.test+" "+quote(x.v))
			set = append(set, x.cmd+" -R "+quote(x.v)+` -- "$p"`)
		}
	}
	snap := `$(find "$p" -exec stat -c '%a %U %G' {} + | cksum)`
	s := "if $dry; then\n"
	if len(look) > 0 {
		s += `  [ -z "$(find "$p" \( ` + strings.Join(look, " -o ") + ` \) -print | head -n 1)" ] || c=1` + "\n"
	} else {
		s += "  :\n"
	}
	s += "else\n  o=" + snap + "\n  " + strings.Join(set, " && ") + " || exit 1\n  [ \"" + snap + "\" = \"$o\" ] || c=1\nfi\n"
	return s
}

// hostPath is p as a shell word with a leading ~ expanded on the host, as Ansible expands it
// there (the home of the user the command runs as), instead of a directory named "~".
func hostPath(p string) string {
	switch {
	case p == "~":
		return `"$HOME"`
	case strings.HasPrefix(p, "~/"):
		return `"$HOME"/` + quote(strings.TrimPrefix(p, "~/"))
	}
	return quote(p)
}
