//go:build integration

package integration_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

// Ansible's side of a conformance case is the same on every run with the same case files and
// the same ansible-core, Python and Jinja2: it is recorded (testdata/conformance-ansible, one
// JSON file per case) and read back instead of run again, so that `make test` runs
// ansible-playbook only for the cases whose files or Ansible changed. kupgrade's side always
// runs. A record is keyed by the sha256 of the case's files, of the Ansible versions and of the
// settings ansibleCmd runs it with; a record whose key differs is not used: the case then runs
// ansible-playbook, and says how to record it again (KUPGRADE_UPDATE_GOLDEN=1).
// KUPGRADE_CONFORMANCE_LIVE=1 runs ansible-playbook for every case.
const conformanceRecords = "testdata/conformance-ansible"

// record is one case's recorded Ansible outcome.
type record struct {
	Key     string  `json:"key"`
	Outcome outcome `json:"outcome"`
}

// recordedLog is how much of Ansible's output a record keeps, for the report of a difference.
const recordedLog = 16 << 10

var ansibleVersion = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("ansible-playbook", "--version").Output()
	keep := regexp.MustCompile(`(?m)^(ansible-playbook \[core .*\]|  (python|jinja) version = \S+)`)
	return strings.Join(keep.FindAllString(string(out), -1), "\n"), err
})

// ansibleOutcome is Ansible's outcome of the case in dir: recorded, or run now.
func ansibleOutcome(t *testing.T, dir string, meta caseMeta, servers map[string]*sshtest.Server) outcome {
	t.Helper()
	key := caseKey(t, dir)
	path := filepath.Join(conformanceRecords, filepath.Base(dir)+".json")
	var r record
	if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &r) == nil && r.Key == key && os.Getenv("KUPGRADE_CONFORMANCE_LIVE") != "1" {
		return r.Outcome
	}
	o := runTool(t, dir, meta, servers, ansibleCmd)
	if os.Getenv("KUPGRADE_UPDATE_GOLDEN") != "1" {
		t.Logf("ran ansible-playbook: %s is missing or was recorded for other case files or another Ansible; record it with KUPGRADE_UPDATE_GOLDEN=1", path)
		return o
	}
	saved := o
	if len(saved.Log) > recordedLog {
		saved.Log = saved.Log[:recordedLog/2] + "\n[...]\n" + saved.Log[len(saved.Log)-recordedLog/2:]
	}
	b, err := json.MarshalIndent(record{Key: key, Outcome: saved}, "", " ")
	if err == nil {
		err = os.WriteFile(path, append(b, '\n'), 0o644)
	}
	if err != nil {
		t.Fatalf("record Ansible's outcome: %v", err)
	}
	return o
}

// caseKey is the sha256 of what Ansible's outcome of the case depends on: every file of the
// case's folder (names and contents), the Ansible versions and ansibleCmd's settings.
func caseKey(t *testing.T, dir string) string {
	t.Helper()
	version, err := ansibleVersion()
	if err != nil {
		t.Fatalf("ansible-playbook --version: %v", err)
	}
	h := sha256.New()
	h.Write([]byte(version + "\n" + strings.Join(ansibleSettings, "\n") + "\n"))
	dependent := false
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel + "\x00" + string(b) + "\x00"))
		dependent = dependent || machineFacts.Match(b)
		return err
	})
	if err != nil {
		t.Fatalf("hash the case %s: %v", dir, err)
	}
	if dependent {
		h.Write([]byte(machineFingerprint()))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// machineFacts finds what makes a case's outcome depend on the machine it runs on: facts that
// differ from machine to machine or day to day, the environment, commands' output read by a
// lookup. Such a case's record holds on the machine (and the day) it was made only.
var machineFacts = regexp.MustCompile(`ansible_(facts\.)?(hostname|fqdn|nodename|domain|date_time|default_ipv[46]|all_ipv[46]_addresses|interfaces|` +
	`machine_id|env|uptime|mem|swap|mounts|devices|processor|kernel|product|board|bios|system_vendor|lo\b|eth|ens|user_|real_user|effective_)` +
	`|lookup\(\s*['"](env|pipe)|query\(\s*['"](env|pipe)|\bsetup:|gather_subset|\bnow\(|strftime`)

// machineFingerprint tells this machine and this day apart from others (not by its addresses:
// the test labs' networks come and go).
func machineFingerprint() string {
	host, _ := os.Hostname()
	id, _ := os.ReadFile("/etc/machine-id")
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return strings.Join([]string{host, string(id), string(kernel), time.Now().UTC().Format(time.DateOnly)}, "\n")
}
