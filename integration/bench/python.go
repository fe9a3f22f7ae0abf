package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// pyTasks is how many tasks each playbook of the Python measure has.
const pyTasks = 10

// pyCost is the Python path's cost at N hosts: the same number of tasks, once through
// ansible.builtin.find (not built in: packaged with its module_utils, sent and run by the
// host's python3) and once through the built-in command module; the difference per task is
// what a module through Python costs on top of a built-in one.
type pyCost struct {
	N                        int
	Python, Builtin, Ansible measure // Ansible: ansible-playbook on the Python playbook
}

// pythonOnce measures pyCost at n fresh servers, the kupgrade runs o.runs times each
// (medians), ansible-playbook once when asked for at n.
func pythonOnce(ctx context.Context, o options, w *workspace, n int, clientPub ssh.PublicKey, log io.Writer) (pyCost, error) {
	_, stop, err := fleet(ctx, w, n, clientPub)
	if err != nil {
		return pyCost{}, err
	}
	defer stop()
	py, builtin := filepath.Join(w.Dir, "python.yml"), filepath.Join(w.Dir, "builtin.yml")
	if err := writeFile(py, pyPlaybook("ansible.builtin.find:\n        paths: "+w.DestDir)); err != nil {
		return pyCost{}, err
	}
	if err := writeFile(builtin, pyPlaybook("command: /bin/true")); err != nil {
		return pyCost{}, err
	}
	var pys, bis []measure
	for i := range o.runs {
		pys = append(pys, runKupgradeOn(ctx, o.kupgrade, w, py, n))
		bis = append(bis, runKupgradeOn(ctx, o.kupgrade, w, builtin, n))
		report(log, n, "kupgrade python find", i+1, pys[i])
		report(log, n, "kupgrade command", i+1, bis[i])
	}
	c := pyCost{N: n, Python: summarize(n, "", pys).measure, Builtin: summarize(n, "", bis).measure}
	if len(o.ansibleNs) > 0 {
		cmd := exec.CommandContext(ctx, "ansible-playbook", "-i", w.Inventory, "--forks", strconv.Itoa(n), py)
		cmd.Env = childEnv("ANSIBLE_CONFIG="+w.AnsibleCfg, "ANSIBLE_NOCOLOR=1")
		c.Ansible, _ = runChild(ctx, cmd)
		c.Ansible.CPU += mastersCPU(w.ControlDir)
		report(log, n, "ansible-playbook python find", 1, c.Ansible)
	}
	return c, ctx.Err()
}

func pyPlaybook(task string) string {
	var b strings.Builder
	b.WriteString("- name: python path\n  hosts: all\n  gather_facts: false\n  tasks:\n")
	for i := range pyTasks {
		fmt.Fprintf(&b, "    - name: task %d\n      %s\n", i+1, task)
	}
	return b.String()
}

// printPyCost writes the Python path's figures: wall per task of each playbook, and the cost a
// Python task adds over a built-in one.
func printPyCost(w io.Writer, c pyCost) {
	per := func(m measure) string {
		if m.Err != nil || m.Wall == 0 {
			return "FAILED"
		}
		return fmt.Sprintf("%.0f ms/task (CPU %.1f ms/host-task)", ms(m.Wall)/pyTasks, ms(m.CPU)/float64(pyTasks*c.N))
	}
	fmt.Fprintf(w, "Python modules at N=%d, %d tasks: kupgrade ansible.builtin.find %s; kupgrade command %s; ", c.N, pyTasks, per(c.Python), per(c.Builtin))
	if c.Python.Err == nil && c.Builtin.Err == nil {
		fmt.Fprintf(w, "the Python path adds %.0f ms a task", (ms(c.Python.Wall)-ms(c.Builtin.Wall))/pyTasks)
	}
	if c.Ansible.Wall > 0 {
		fmt.Fprintf(w, "; ansible-playbook ansible.builtin.find %s", per(c.Ansible))
	}
	fmt.Fprintln(w)
	for _, m := range []measure{c.Python, c.Builtin, c.Ansible} {
		if m.Err != nil {
			fmt.Fprintf(w, "FAILED: %v\n", m.Err)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
