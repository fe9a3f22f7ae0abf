package modules

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Python returns the Module that runs an Ansible module written in Python, as Ansible runs it:
// the module at src is packaged with the module_utils it imports (found under roots, the
// folders holding ansible/module_utils and ansible_collections), sent over the task's
// connection on stdin, and run by the host's python3 (or ansible_python_interpreter) with the
// task's arguments; its JSON answer is the result (changed, failed, msg, diff, ansible_facts
// and the rest, as the module returns them). The package is built once, on first use.
func Python(name, src string, roots []string) Module {
	var once sync.Once
	var pkg *pyPackage
	var perr error
	return func(ctx context.Context, m *Task, args map[string]any) (Result, error) {
		once.Do(func() { pkg, perr = packPython(src, roots) })
		if perr != nil {
			return Failure(fmt.Sprintf("%s (%s): %v", name, src, perr)), nil
		}
		return runPython(ctx, m, name, pkg, args)
	}
}

// pyBoot unpacks the zip into a private temporary folder, hands the module its arguments as
// AnsiballZ does (basic._ANSIBLE_ARGS) and runs it as __main__; the folder goes when it ends.
const pyBoot = `import base64, json, os, runpy, shutil, sys, tempfile
d = json.loads(sys.stdin.read())
t = tempfile.mkdtemp(prefix="ansible-kupgrade-")
try:
    z = os.path.join(t, "module.zip")
    with open(z, "wb") as f:
        f.write(base64.b64decode(d["zip"]))
    sys.path.insert(0, z)
    a = d["args"]
    a["_ansible_tmpdir"] = a["_ansible_remote_tmp"] = t
    import ansible.module_utils.basic as basic
    basic._ANSIBLE_ARGS = json.dumps({"ANSIBLE_MODULE_ARGS": a}).encode("utf-8")
    runpy.run_module(d["name"], run_name="__main__", alter_sys=True)
finally:
    shutil.rmtree(t, True)
`

func runPython(ctx context.Context, m *Task, name string, pkg *pyPackage, args map[string]any) (Result, error) {
	in, err := json.Marshal(map[string]any{"zip": base64.StdEncoding.EncodeToString(pkg.zip), "name": pkg.name,
		"args": pyArgs(m, name, args)})
	if err != nil {
		return Failure(fmt.Sprintf("%s: arguments: %v", name, err)), nil
	}
	py := ArgStr(m.Vars, "ansible_python_interpreter")
	if py == "" || strings.Contains(py, "{{") {
		py = "python3"
	}
	out, err := m.run(ctx, py+" -c "+quote(pyBoot), bytes.NewReader(in))
	if err != nil {
		return nil, err
	}
	return pyResult(out), nil
}

// pyArgs are the task's arguments and the _ansible_ ones Ansible adds for every module.
func pyArgs(m *Task, name string, args map[string]any) map[string]any {
	a := make(map[string]any, len(args)+8)
	for k, v := range args {
		a[k] = v
	}
	a["_ansible_check_mode"] = m.Check
	a["_ansible_no_log"] = m.NoLog
	a["_ansible_diff"] = m.Diff
	a["_ansible_verbosity"] = 0
	a["_ansible_module_name"] = name
	a["_ansible_version"] = AnsibleVersion
	a["_ansible_keep_remote_files"] = false
	a["_ansible_shell_executable"] = "/bin/sh"
	a["_ansible_string_conversion_action"] = "warn"
	a["_ansible_syslog_facility"] = "LOG_USER"
	a["_ansible_selinux_special_fs"] = []string{"fuse", "nfs", "vboxsf", "ramfs", "9p", "vfat"}
	return a
}

// pyResult reads the module's JSON answer from its stdout, past any noise around it (as
// Ansible's _filter_non_json_lines); without one the task fails as Ansible's MODULE FAILURE.
func pyResult(out cmdOut) Result {
	start := strings.Index(out.stdout, "{")
	end := strings.LastIndex(out.stdout, "}")
	var res Result
	if start >= 0 && end > start {
		d := json.NewDecoder(strings.NewReader(out.stdout[start : end+1]))
		d.UseNumber()
		if d.Decode(&res) == nil {
			for k := range res {
				if strings.HasPrefix(k, "_ansible_") {
					delete(res, k)
				}
			}
			if _, ok := res["changed"]; !ok {
				res["changed"] = false
			}
			return Result(pyNumbers(map[string]any(res)).(map[string]any))
		}
	}
	r := Failure("MODULE FAILURE\nSee stdout/stderr for the exact error")
	r["rc"], r["module_stdout"], r["module_stderr"] = out.rc, out.stdout, out.stderr
	return r
}

// pyNumbers turns JSON numbers into int when whole, float64 otherwise, as the runner's other
// values are.
func pyNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return int(n)
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = pyNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = pyNumbers(e)
		}
	}
	return v
}
