package runnertest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// EditCase is one case of the text-editing modules (lineinfile, blockinfile, replace), run by
// ansible-core and by kupgrade on a file of its own; runner/testdata/textedit/cases.yml lists them.
type EditCase struct {
	Name   string         `yaml:"name"`
	Module string         `yaml:"module"`
	Before *string        `yaml:"before"` // nil: the file does not exist
	Args   map[string]any `yaml:"args"`
	Check  bool           `yaml:"check"`
}

// EditOutcome is what is compared: the file afterwards and the result's fields.
type EditOutcome struct {
	After   *string `json:"after"` // nil: no file
	Mode    string  `json:"mode,omitempty"`
	Changed bool    `json:"changed"`
	Failed  bool    `json:"failed"`
	Msg     string  `json:"msg"`
	RC      *int    `json:"rc,omitempty"`
	Found   *int    `json:"found,omitempty"`
	// Again is whether a second run of the same task changed the file again (some edits are
	// not idempotent in Ansible either: a line added after a last line without a newline).
	Again bool `json:"changed_again"`
}

// LoadEditCases reads the cases file.
func LoadEditCases(path string) ([]EditCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cases []EditCase
	if err := yaml.Unmarshal(data, &cases); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cases, nil
}

// Prepare writes each case's file into dir (named after the case).
func Prepare(dir string, cases []EditCase) error {
	for _, c := range cases {
		if c.Before == nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, c.Name), []byte(*c.Before), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Tasks is a playbook's task list running every case on its file in dir, each registered as
// r<index>, with ignore_errors; Ansible and kupgrade read the same text.
func Tasks(dir string, cases []EditCase) (string, error) {
	var b strings.Builder
	for i, c := range cases {
		args := map[string]any{"path": filepath.Join(dir, c.Name)}
		for k, v := range c.Args {
			args[k] = v
		}
		js, err := json.Marshal(args)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "    - name: %s\n      %s: %s\n      register: r%d\n      ignore_errors: true\n", c.Name, c.Module, js, i)
		if c.Check {
			b.WriteString("      check_mode: true\n")
		}
	}
	return b.String(), nil
}

// Outcome reads what case c left in dir and the fields of its result res.
func Outcome(dir string, c EditCase, res map[string]any) EditOutcome {
	o := EditOutcome{Changed: res["changed"] == true, Failed: res["failed"] == true}
	if s, ok := res["msg"].(string); ok {
		o.Msg = strings.ReplaceAll(s, dir, "DIR")
	}
	o.RC, o.Found = number(res["rc"]), number(res["found"])
	p := filepath.Join(dir, c.Name)
	if data, err := os.ReadFile(p); err == nil {
		s := string(data)
		o.After = &s
		if st, err := os.Stat(p); err == nil {
			o.Mode = fmt.Sprintf("%04o", st.Mode().Perm())
		}
	}
	return o
}

func number(v any) *int {
	var n int
	switch x := v.(type) {
	case int:
		n = x
	case int64:
		n = int(x)
	case float64:
		n = int(x)
	default:
		return nil
	}
	return &n
}
