package runner

import (
	"context"
	"fmt"
	"strings"
)

// modFile sets a path's state (file, directory, absent, touch) and attributes in one command
// that prints whether it changed anything; in check mode the same script only looks.
func modFile(ctx context.Context, m *modCtx, args map[string]any) (map[string]any, error) {
	p := argStr(args, "path")
	if p == "" {
		p = argStr(args, "dest")
	}
	if p == "" {
		p = argStr(args, "name")
	}
	if p == "" {
		return failure("file: path is required"), nil
	}
	state := argStr(args, "state")
	if state == "" {
		state = "file"
	}
	mode, symbolic, hasMode, err := argMode(args, "mode")
	if err != nil {
		return failure("file: " + err.Error()), nil
	}
	dry := "false"
	if m.check {
		dry = "true"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "p=%s; c=0; dry=%s\n", hostPath(p), dry)
	switch state {
	case "directory":
		b.WriteString(`if [ ! -d "$p" ]; then
  if [ -e "$p" ]; then echo "$p exists and is not a directory" >&2; exit 1; fi
  $dry || mkdir -p -- "$p" || exit 1; c=1
fi
`)
	case "absent":
		b.WriteString(`if [ -e "$p" ] || [ -h "$p" ]; then $dry || rm -rf -- "$p" || exit 1; c=1; fi
echo "changed=$c"; exit 0
`)
	case "touch":
		b.WriteString(`$dry || touch -- "$p" || exit 1; c=1
`)
	case "file":
		b.WriteString(`if [ ! -e "$p" ]; then echo "file $p is absent, cannot continue" >&2; exit 1; fi
`)
	default:
		return failure(fmt.Sprintf("file: unsupported state %q (file, directory, absent, touch)", state)), nil
	}
	if hasMode {
		if symbolic != "" {
			fmt.Fprintf(&b, `if [ -e "$p" ] && ! $dry; then o=$(stat -c %%a "$p"); chmod %s "$p" || exit 1; [ "$(stat -c %%a "$p")" = "$o" ] || c=1; fi
`, quote(symbolic))
		} else {
			fmt.Fprintf(&b, `if [ ! -e "$p" ] || [ "$(stat -c %%a "$p")" != %s ]; then $dry || chmod %s "$p" || exit 1; c=1; fi
`, modeText(mode), modeText(mode))
		}
	}
	for _, a := range []struct{ key, fmt, cmd string }{{"owner", "%U", "chown"}, {"group", "%G", "chgrp"}} {
		if v := argStr(args, a.key); v != "" {
			fmt.Fprintf(&b, `if [ ! -e "$p" ] || [ "$(stat -c %s "$p")" != %s ]; then $dry || %s %s "$p" || exit 1; c=1; fi
`, a.fmt, quote(v), a.cmd, quote(v))
		}
	}
	b.WriteString(`echo "changed=$c"`)
	out, err := m.runPlain(ctx, b.String())
	if err != nil {
		return nil, err
	}
	if out.rc != 0 {
		r := commandFailure("file "+p, out)
		r["msg"] = lastLine(out.stderr)
		return r, nil
	}
	return map[string]any{"changed": strings.Contains(out.stdout, "changed=1"), "path": p, "state": state}, nil
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
