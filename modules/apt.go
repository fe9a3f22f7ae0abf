package modules

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// apt (and package on a host with apt): one command reads what is installed (dpkg-query), what
// apt would install (apt-cache policy), updates the cache when asked and older than
// cache_valid_time, and runs apt-get install or remove only for the packages that need it, so a
// second run changes nothing. In check mode it decides and runs nothing.

type aptWant struct {
	names                  []string // name or name=version (a glob, as Ansible's fnmatch)
	state                  string   // present, absent, latest
	updateCache            bool
	validTime              int
	recommends             *bool
	purge, autoremove      bool
	defaultRelease, dpkgOp string
}

func readAptWant(args map[string]any) (aptWant, string) {
	w := aptWant{state: ArgStr(args, "state"), updateCache: argBool(args, "update_cache", false),
		recommends: optBool(args, "install_recommends"), purge: argBool(args, "purge", false),
		autoremove: argBool(args, "autoremove", false), defaultRelease: ArgStr(args, "default_release"),
		dpkgOp: argStrOr(args, "dpkg_options", "force-confdef,force-confold")}
	switch v := args["name"].(type) {
	case []any:
		for _, n := range v {
			w.names = append(w.names, fmt.Sprint(n))
		}
	case nil:
	default:
		for n := range strings.SplitSeq(ArgStr(args, "name"), ",") {
			if n = strings.TrimSpace(n); n != "" {
				w.names = append(w.names, n)
			}
		}
	}
	switch w.state {
	case "", "installed":
		w.state = "present"
	case "removed":
		w.state = "absent"
	case "present", "absent", "latest":
	default:
		return w, fmt.Sprintf("state %q is not supported by kupgrade (present, absent, latest)", w.state)
	}
	if t := ArgStr(args, "cache_valid_time"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil {
			return w, fmt.Sprintf("cache_valid_time: %q is not a whole number of seconds", t)
		}
		w.validTime, w.updateCache = n, true
	}
	if len(w.names) == 0 && !w.updateCache {
		return w, "apt needs name, or update_cache"
	}
	return w, ""
}

func modApt(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	w, bad := readAptWant(args)
	if bad != "" {
		return Failure(bad), nil
	}
	return runApt(ctx, m, w, "apt: the host has no apt-get and dpkg-query (not Debian): not supported by kupgrade")
}

// modPackage is Ansible's package on a host with apt; elsewhere it says it is not supported.
func modPackage(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	if u := ArgStr(args, "use"); u != "" && u != "auto" && u != "apt" {
		return Failure(fmt.Sprintf("package: use=%s is not supported by kupgrade (apt only)", u)), nil
	}
	aptArgs, bad := packageAptArgs(args)
	if bad != "" {
		return Failure(bad), nil
	}
	w, bad := readAptWant(aptArgs)
	if bad != "" {
		return Failure(bad), nil
	}
	return runApt(ctx, m, w, "package: the host's package manager is not apt: not supported by kupgrade (kupgrade installs packages on Debian only)")
}

func runApt(ctx context.Context, m *Task, w aptWant, noApt string) (map[string]any, error) {
	out, err := m.runWithEnv(ctx, aptScript(w, m.Check, noApt), nil)
	if err != nil {
		return nil, err
	}
	head, body, _ := strings.Cut(out.stdout, "kupgrade:out\n")
	kv := markedLines(head)
	res := map[string]any{"changed": kv["changed"] == "1", "cache_updated": kv["cache_updated"] == "1"}
	if t, err := strconv.Atoi(kv["cache_update_time"]); err == nil {
		res["cache_update_time"] = t
	}
	if out.rc != 0 {
		r := commandFailure("apt-get", cmdOut{out.rc, body, out.stderr})
		r["msg"] = strings.TrimSpace(out.stderr)
		if i := strings.LastIndex(r["msg"].(string), "kupgrade:msg="); i >= 0 {
			r["msg"] = r["msg"].(string)[i+len("kupgrade:msg="):]
		}
		return r, nil
	}
	if kv["ran"] == "1" {
		o := cmdOut{0, strings.TrimRight(body, "\n"), out.stderr}
		for k, v := range o.result(true) {
			if k != "changed" && k != "rc" && k != "failed" {
				res[k] = v
			}
		}
	}
	return res, nil
}

// aptScript is the whole apt task as one script: the packages are its arguments.
func aptScript(w aptWant, dry bool, noApt string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `command -v apt-get >/dev/null && command -v dpkg-query >/dev/null || { echo %s >&2; exit 127; }
export DEBIAN_FRONTEND=noninteractive; set -f
dry=%t; c=0; u=0; s=/var/lib/apt/periodic/update-success-stamp; [ -e $s ] || s=/var/lib/apt/lists
`, quote(noApt), dry)
	if w.updateCache {
		fmt.Fprintf(&b, `a=$(( $(date +%%s) - $(stat -c %%Y $s 2>/dev/null || echo 0) ))
if [ %d -le 0 ] || [ $a -gt %d ]; then
  if ! $dry; then e=$(apt-get update -q 2>&1) || { echo "kupgrade:msg=Failed to update apt cache: $e" >&2; exit 1; }; fi; u=1
fi
`, w.validTime, w.validTime)
	}
	b.WriteString(`echo "kupgrade:cache_updated=$u"; echo "kupgrade:cache_update_time=$(stat -c %Y $s 2>/dev/null)"
add=; del=
for p in ` + quoteAll(w.names) + `; do
  n=${p%%=*}; v=; [ "$n" = "$p" ] || v=${p#*=}
  i=$(dpkg-query -W -f='${Status} ${Version}' "$n" 2>/dev/null | sed -n 's/^install ok installed //p')
`)
	switch w.state {
	case "absent":
		b.WriteString(`  [ -z "$i" ] || del="$del $n"` + "\n")
	case "present":
		b.WriteString(`  if [ -z "$i" ] || { [ -n "$v" ] && case "$i" in $v) false;; *) true;; esac; }; then add="$add $p"; fi` + "\n")
	case "latest":
		b.WriteString(`  k=$(apt-cache policy "$n" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  if [ -z "$i" ] || [ "$k" != "$i" ]; then add="$add $p"; fi` + "\n")
	}
	b.WriteString(`done
for p in $add; do
  k=$(apt-cache policy "${p%%=*}" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  if [ -z "$k" ] || [ "$k" = "(none)" ]; then echo "kupgrade:msg=No package matching '${p%%=*}' is available" >&2; exit 1; fi
done
[ -z "$add$del" ] || c=1
echo "kupgrade:changed=$c"
$dry && exit 0
`)
	opts := ""
	for o := range strings.SplitSeq(w.dpkgOp, ",") {
		if o = strings.TrimSpace(o); o != "" {
			opts += " -o " + quote("Dpkg::Options::=--"+o)
		}
	}
	if w.recommends != nil {
		opts += " -o APT::Install-Recommends=" + map[bool]string{true: "yes", false: "no"}[*w.recommends]
	}
	if w.defaultRelease != "" {
		opts += " -t " + quote(w.defaultRelease)
	}
	remove := "remove"
	if w.purge {
		remove += " --purge"
	}
	if w.autoremove {
		remove += " --auto-remove"
	}
	fmt.Fprintf(&b, `echo kupgrade:ran=$c; echo kupgrade:out
if [ -n "$add" ]; then apt-get -y%s install $add || { echo "kupgrade:msg=apt-get install$add failed" >&2; exit 1; }; fi
if [ -n "$del" ]; then apt-get -y -q %s $del || { echo "kupgrade:msg=apt-get remove$del failed" >&2; exit 1; }; fi
`, opts, remove)
	return b.String()
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return strings.Join(q, " ")
}
