package modules

import (
	"context"
	"fmt"
	"strings"
)

// systemd (systemd_service) and service: the unit's state is read in one command (after
// daemon-reload when asked), the actions it needs run in a second one, only when it needs any;
// check mode reads and reports what would change. The decisions are those of ansible-core's
// systemd_service module; service uses them on a host that runs systemd and the `service`
// command (with update-rc.d for enabled) on one that does not.

// unitWant is what a task asks of a unit.
type unitWant struct {
	name, state          string // state: started, stopped, restarted, reloaded or ""
	enabled, masked      *bool
	daemonReload, reexec bool
	systemctl            string // systemctl with --user, --no-block, --force as asked
}

func optBool(args map[string]any, key string) *bool {
	if _, ok := args[key]; !ok || args[key] == nil {
		return nil
	}
	b := argBool(args, key, false)
	return &b
}

func readUnitWant(args map[string]any) (unitWant, string) {
	w := unitWant{name: ArgStr(args, "name"), state: ArgStr(args, "state"), enabled: optBool(args, "enabled"),
		masked: optBool(args, "masked"), daemonReload: argBool(args, "daemon_reload", false),
		reexec: argBool(args, "daemon_reexec", false), systemctl: "systemctl"}
	if s := ArgStr(args, "scope"); s != "" && s != "system" {
		w.systemctl += " --" + s
	}
	if argBool(args, "no_block", false) {
		w.systemctl += " --no-block"
	}
	if argBool(args, "force", false) {
		w.systemctl += " --force"
	}
	if strings.ContainsAny(w.name, "*?[") {
		return w, fmt.Sprintf("This module does not currently support using glob patterns, found in service name: %s", w.name)
	}
	if w.name == "" && (w.state != "" || w.enabled != nil || w.masked != nil) {
		return w, "name is required with state, enabled or masked"
	}
	return w, ""
}

func modSystemd(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	w, bad := readUnitWant(args)
	if bad != "" {
		return Failure(bad), nil
	}
	return systemdUnit(ctx, m, w)
}

// unitProbe is what the first command found.
type unitProbe struct {
	status    map[string]any
	enabledRC int
	enabledAs string // is-enabled's answer: enabled, disabled, static, masked, indirect...
}

func systemdUnit(ctx context.Context, m *Task, w unitWant) (map[string]any, error) {
	p, fail, err := probeUnit(ctx, m, w)
	if err != nil || fail != nil {
		return fail, err
	}
	res := map[string]any{"changed": false, "status": p.status}
	if w.name == "" {
		return res, nil
	}
	res["name"] = w.name
	load, _ := p.status["LoadState"].(string)
	if load == "" || load == "not-found" {
		if w.state != "" || w.enabled != nil {
			r := Failure(fmt.Sprintf("Could not find the requested service %s: host", w.name))
			r["status"] = p.status
			return r, nil
		}
	} else if le, ok := p.status["LoadError"]; ok && load != "masked" {
		return Failure(fmt.Sprintf("Error loading unit file '%s': %v", w.name, le)), nil
	}
	actions := unitActions(w, p, res)
	if len(actions) == 0 || m.Check {
		return res, nil
	}
	var b strings.Builder
	for _, a := range actions {
		fmt.Fprintf(&b, "%s %s %s || { rc=$?; echo %s >&2; exit $rc; }\n", w.systemctl, a, quote(w.name),
			quote(fmt.Sprintf("Unable to %s service %s", a, w.name)))
	}
	out, err := m.runPlain(ctx, b.String())
	if err != nil {
		return nil, err
	}
	if out.rc != 0 {
		r := Failure(unitFailure(out.stderr))
		r["rc"] = out.rc
		return r, nil
	}
	return res, nil
}

// unitFailure is Ansible's "Unable to ACTION service NAME: ERR" from the action's stderr, whose
// last line is the script's own note.
func unitFailure(stderr string) string {
	stderr = strings.TrimRight(stderr, "\n")
	i := strings.LastIndexByte(stderr, '\n')
	if i < 0 {
		return stderr
	}
	return stderr[i+1:] + ": " + strings.TrimSpace(stderr[:i])
}

// unitActions decides the systemctl actions (Ansible's order: mask, enable, then state) and
// records enabled and state in res as Ansible reports them.
func unitActions(w unitWant, p unitProbe, res map[string]any) []string {
	var actions []string
	if w.masked != nil && (p.enabledAs == "masked") != *w.masked {
		res["changed"] = true
		actions = append(actions, map[bool]string{true: "mask", false: "unmask"}[*w.masked])
	}
	if w.enabled != nil {
		enabled := p.enabledRC == 0 && p.enabledAs != "indirect" && p.enabledAs != "alias"
		res["enabled"] = enabled
		if enabled != *w.enabled {
			res["changed"], res["enabled"] = true, !enabled
			actions = append(actions, map[bool]string{true: "enable", false: "disable"}[*w.enabled])
		}
	}
	if w.state == "" {
		return actions
	}
	res["state"] = w.state
	active, _ := p.status["ActiveState"].(string)
	running := active == "active" || active == "activating"
	action := ""
	switch w.state {
	case "started":
		if !running {
			action = "start"
		}
	case "stopped":
		if running || active == "deactivating" {
			action = "stop"
		}
	default:
		action = strings.TrimSuffix(w.state, "ed")
		if !running {
			action = "start"
		}
		res["state"] = "started"
	}
	if action != "" {
		res["changed"] = true
		actions = append(actions, action)
	}
	return actions
}

const (
	probeShow    = "kupgrade:show"
	probeEnabled = "kupgrade:enabled"
)

// probeUnit runs daemon-reload (not in check mode), systemctl show and is-enabled in one command.
func probeUnit(ctx context.Context, m *Task, w unitWant) (unitProbe, map[string]any, error) {
	var b strings.Builder
	b.WriteString("command -v systemctl >/dev/null || { echo 'systemctl is not installed on the host' >&2; exit 127; }\n")
	for _, x := range []struct {
		on   bool
		verb string
	}{{w.daemonReload, "daemon-reload"}, {w.reexec, "daemon-reexec"}} {
		if x.on && !m.Check {
			fmt.Fprintf(&b, "e=$(%s %s 2>&1) || { rc=$?; echo \"failure $rc during %s: $e\" >&2; exit 1; }\n", w.systemctl, x.verb, x.verb)
		}
	}
	if w.name != "" {
		fmt.Fprintf(&b, "echo %s; %s show %s || exit $?\n", probeShow, w.systemctl, quote(w.name))
		fmt.Fprintf(&b, "echo %s; %s is-enabled %s -l; echo \"rc=$?\"\n", probeEnabled, w.systemctl, quote(w.name))
	}
	out, err := m.runPlain(ctx, b.String())
	if err != nil {
		return unitProbe{}, nil, err
	}
	if out.rc != 0 {
		r := Failure(strings.TrimSpace(out.stderr))
		if !strings.HasPrefix(out.stderr, "failure") && !strings.HasPrefix(out.stderr, "systemctl is not") {
			r["msg"] = fmt.Sprintf("systemctl show %s: %s", w.name, strings.TrimSpace(out.stderr))
		}
		r["rc"] = out.rc
		return unitProbe{}, r, nil
	}
	return parseProbe(out.stdout), nil, nil
}

func parseProbe(out string) unitProbe {
	p := unitProbe{status: map[string]any{}, enabledRC: -1}
	show, enabled, _ := strings.Cut(out, probeEnabled+"\n")
	_, show, _ = strings.Cut(show, probeShow+"\n")
	p.status = parseShow(show)
	for l := range strings.SplitSeq(strings.TrimSpace(enabled), "\n") {
		if rc, ok := strings.CutPrefix(l, "rc="); ok {
			fmt.Sscan(rc, &p.enabledRC)
		} else if p.enabledAs == "" {
			p.enabledAs = strings.TrimSpace(l)
		}
	}
	return p
}

// parseShow reads systemctl show's KEY=VALUE lines; a value that opens with { and does not close
// on its line goes on to the line that ends with } (Ansible's parse_systemctl_show).
func parseShow(out string) map[string]any {
	st := map[string]any{}
	key, val := "", ""
	for l := range strings.SplitSeq(out, "\n") {
		if key != "" {
			val += "\n" + l
			if strings.HasSuffix(strings.TrimSpace(l), "}") {
				st[key], key = val, ""
			}
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(v), "{") && !strings.HasSuffix(strings.TrimSpace(v), "}") {
			key, val = k, v
			continue
		}
		st[k] = v
	}
	return st
}

// modService runs systemd's logic on a host that runs systemd (as Ansible's service action
// does, after the ansible_service_mgr fact), else the `service` command: one command on such a
// host, which also says whether it runs systemd.
func modService(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	w, bad := readUnitWant(map[string]any{"name": args["name"], "state": args["state"], "enabled": args["enabled"]})
	if bad != "" {
		return Failure(bad), nil
	}
	use := ArgStr(args, "use")
	if use == "systemd" {
		return systemdUnit(ctx, m, w)
	}
	script := sysvScript(w, m.Check)
	if use == "" || use == "auto" {
		script = "if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then echo kupgrade:systemd; exit 0; fi\n" + script
	}
	out, err := m.runPlain(ctx, script)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(out.stdout) == "kupgrade:systemd" {
		return systemdUnit(ctx, m, w)
	}
	if out.rc != 0 {
		r := Failure(strings.TrimSpace(out.stderr))
		if r["msg"] == "" {
			r["msg"] = strings.TrimSpace(out.stdout)
		}
		r["rc"] = out.rc
		return r, nil
	}
	res := map[string]any{"name": w.name, "changed": strings.Contains(out.stdout, "kupgrade:changed=1")}
	if w.enabled != nil {
		res["enabled"] = *w.enabled
	}
	switch w.state {
	case "stopped":
		res["state"] = "stopped"
	case "":
	default:
		res["state"] = "started"
	}
	return res, nil
}

// sysvScript is the service module on a host without systemd: `service NAME status|start|...`
// and update-rc.d for enabled, in one script that prints whether it changed anything.
func sysvScript(w unitWant, dry bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, `command -v service >/dev/null || { echo 'the host runs neither systemd nor a service command: not supported by kupgrade' >&2; exit 127; }
n=%s; dry=%t; c=0
o=$(service "$n" status 2>&1); s=$?
case "$o" in *"unrecognized service"*) echo "Could not find the requested service $n: host" >&2; exit 1;; esac
`, quote(w.name), dry)
	if w.enabled != nil {
		verb := map[bool]string{true: "enable", false: "disable"}[*w.enabled]
		fmt.Fprintf(&b, `command -v update-rc.d >/dev/null || { echo 'enabled: kupgrade sets boot links with systemd or update-rc.d; not supported by kupgrade on this host' >&2; exit 1; }
e=false; for f in /etc/rc?.d/S??"$n"; do [ -e "$f" ] && e=true; done
if [ $e != %t ]; then c=1
  if %t && ! $dry; then k=false; for f in /etc/rc?.d/K??"$n"; do [ -e "$f" ] && k=true; done; $k || update-rc.d "$n" defaults >&2 || exit 1; fi
  $dry || update-rc.d "$n" %s >&2 || exit 1
fi
`, *w.enabled, *w.enabled, verb)
	}
	switch w.state {
	case "started":
		b.WriteString(`if [ $s != 0 ]; then c=1; $dry || service "$n" start >&2 || exit 1; fi` + "\n")
	case "stopped":
		b.WriteString(`if [ $s = 0 ]; then c=1; $dry || service "$n" stop >&2 || exit 1; fi` + "\n")
	case "restarted":
		b.WriteString(`c=1; $dry || service "$n" restart >&2 || exit 1` + "\n")
	case "reloaded":
		b.WriteString(`c=1; a=reload; [ $s = 0 ] || a=start; $dry || service "$n" $a >&2 || exit 1` + "\n")
	}
	b.WriteString(`echo "kupgrade:changed=$c"`)
	return b.String()
}
