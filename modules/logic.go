package modules

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/jinja"
)

// The modules below run on the controller only: they read and write variables.

// modDebug returns the message or the variable as its value (a list stays a list); the event
// shows it as Ansible does (playbooks.Display) and -o json writes it as that JSON value.
func modDebug(_ context.Context, m *Task, args map[string]any) (map[string]any, error) {
	if name := ArgStr(args, "var"); name != "" {
		v, err := jinja.Render("{{ "+name+" }}", m.Vars)
		var undef *jinja.UndefinedError
		if errors.As(err, &undef) {
			v, err = "VARIABLE IS NOT DEFINED!", nil // Ansible's answer, and not a failure
		}
		if err != nil {
			return Failure(fmt.Sprintf("debug var %q: %v", name, err)), nil
		}
		return map[string]any{"changed": false, name: v}, nil
	}
	msg, ok := args["msg"]
	if !ok {
		msg = "Hello world!"
	}
	return map[string]any{"changed": false, "msg": msg}, nil
}

func modSetFact(_ context.Context, _ *Task, args map[string]any) (map[string]any, error) {
	facts := make(map[string]any, len(args))
	for k, v := range args {
		if k != "cacheable" {
			facts[k] = v
		}
	}
	return map[string]any{"changed": false, "ansible_facts": facts}, nil
}

func modFail(_ context.Context, _ *Task, args map[string]any) (map[string]any, error) {
	msg, ok := args["msg"] // a list or a mapping stays one, as Ansible's fail keeps it
	if !ok {
		msg = "Failed as requested from task"
	}
	return map[string]any{"failed": true, "changed": false, "msg": msg}, nil
}

// assertMsg is assert's message: the first of keys given, as written (a string or a list of
// them, as Ansible's assert takes it), else def.
func assertMsg(args map[string]any, def string, keys ...string) any {
	for _, k := range keys {
		if v, ok := args[k]; ok && v != nil {
			return v
		}
	}
	return def
}

func modAssert(_ context.Context, m *Task, args map[string]any) (map[string]any, error) {
	var that []string
	switch v := args["that"].(type) {
	case string:
		that = []string{v}
	case []any:
		for _, x := range v {
			that = append(that, fmt.Sprint(x))
		}
	case bool:
		that = []string{fmt.Sprint(v)}
	default:
		return Failure("assert: that must be a condition or a list of them"), nil
	}
	for _, c := range that {
		ok, err := jinja.Cond(c, m.Vars)
		if err != nil {
			return Failure(fmt.Sprintf("assert %q: %v", c, err)), nil
		}
		if !ok {
			return map[string]any{"changed": false, "failed": true, "msg": assertMsg(args, "Assertion failed", "fail_msg", "msg"),
				"assertion": c, "evaluated_to": false}, nil
		}
	}
	return map[string]any{"changed": false, "msg": assertMsg(args, "All assertions passed", "success_msg")}, nil
}

// distribution names the distribution and its family as Ansible does.
func distribution(id, like string) (string, string) {
	names := map[string]string{"debian": "Debian", "ubuntu": "Ubuntu", "centos": "CentOS", "rhel": "RedHat",
		"rocky": "Rocky", "almalinux": "AlmaLinux", "fedora": "Fedora", "alpine": "Alpine", "arch": "Archlinux",
		"opensuse-leap": "openSUSE Leap", "sles": "SLES", "amzn": "Amazon", "ol": "OracleLinux"}
	families := map[string]string{"debian": "Debian", "ubuntu": "Debian", "centos": "RedHat", "rhel": "RedHat",
		"rocky": "RedHat", "almalinux": "RedHat", "fedora": "RedHat", "amzn": "RedHat", "ol": "RedHat",
		"alpine": "Alpine", "arch": "Archlinux", "opensuse-leap": "Suse", "sles": "Suse"}
	dist, ok := names[id]
	if !ok {
		dist = id
		if id != "" {
			dist = strings.ToUpper(id[:1]) + id[1:]
		}
	}
	fam, ok := families[id]
	if !ok {
		for l := range strings.FieldsSeq(like) {
			if f, ok := families[l]; ok {
				return dist, f
			}
		}
		fam = dist
	}
	return dist, fam
}
