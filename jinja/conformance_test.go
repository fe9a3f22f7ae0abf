package jinja

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"gopkg.in/yaml.v3"
)

// jinjaCases is the table of real-world expressions and its variables; ansible.json beside it
// is what Ansible's Templar made of each, recorded by this test when ansible-core is installed.
const jinjaCases = "testdata"

type jcase struct {
	Kind  string `yaml:"kind" json:"kind"`
	Src   string `yaml:"src" json:"src"`
	Known string `yaml:"known" json:"-"`
}

type answer struct {
	Src   string  `json:"src"`
	Value any     `json:"value"`
	Error *string `json:"error,omitempty"`
}

// TestJinjaMatchesAnsible evaluates every case with kupgrade and compares it with Ansible's
// answer: both fail, or both give the same value. Every difference must be listed as known with
// its reason, and at least 95 % of the cases must match.
func TestJinjaMatchesAnsible(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(jinjaCases, "cases.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Vars  map[string]any `yaml:"vars"`
		Cases []jcase        `yaml:"cases"`
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if err := doc.Decode(&table); err != nil {
		t.Fatal(err)
	}
	orderVars(t, &doc, table.Vars)
	want := ansibleAnswers(t, table.Vars, table.Cases)
	matched := 0
	for i, c := range table.Cases {
		got := kupgradeAnswer(c, table.Vars)
		same := sameAnswer(got, want[i])
		switch {
		case same && c.Known != "":
			t.Errorf("case %d %q now matches Ansible: remove its known difference", i, c.Src)
		case !same && c.Known == "":
			t.Errorf("case %d (%s) %q: kupgrade %s, Ansible %s", i, c.Kind, c.Src, show(got), show(want[i]))
		}
		if same {
			matched++
		}
	}
	ratio := float64(matched) / float64(len(table.Cases))
	t.Logf("%d of %d expressions give Ansible's answer (%.1f %%)", matched, len(table.Cases), 100*ratio)
	if ratio < 0.95 {
		t.Errorf("only %.1f %% of the expressions match Ansible, want at least 95 %%", 100*ratio)
	}
}

func kupgradeAnswer(c jcase, vars map[string]any) answer {
	var v any
	var err error
	switch c.Kind {
	case "cond":
		v, err = Cond(c.Src, vars)
	case "file":
		v, err = RenderFile(c.Src, vars)
	default:
		v, err = Render(c.Src, vars)
	}
	if err != nil {
		msg := err.Error()
		return answer{Src: c.Src, Error: &msg}
	}
	return answer{Src: c.Src, Value: v}
}

// sameAnswer compares through JSON, as Ansible's answers come: 1 and 1.0 are the same number.
func sameAnswer(a, b answer) bool {
	if a.Error != nil || b.Error != nil {
		return a.Error != nil && b.Error != nil
	}
	ja, errA := json.Marshal(a.Value)
	jb, errB := json.Marshal(b.Value)
	if errA != nil || errB != nil {
		return false
	}
	var va, vb any
	return json.Unmarshal(ja, &va) == nil && json.Unmarshal(jb, &vb) == nil && reflect.DeepEqual(va, vb)
}

func show(a answer) string {
	if a.Error != nil {
		return "fails: " + *a.Error
	}
	b, _ := json.Marshal(a.Value)
	return string(b)
}

// ansibleAnswers runs ansible_eval.py once over every case with the Python that has
// ansible-core, or reads the answers it recorded last (testdata/ansible.json).
func ansibleAnswers(t *testing.T, vars map[string]any, cases []jcase) []answer {
	golden := filepath.Join(jinjaCases, "ansible.json")
	py := ansiblePython()
	if py == "" {
		t.Log("ansible-core is missing (Debian package ansible-core): comparing with the recorded answers")
		return readAnswers(t, golden, cases)
	}
	// The variables go in their written order (json.Marshal would sort their keys).
	cs, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	in := []byte(`{"vars": ` + jsonStyle{}.text(vars) + `, "cases": ` + string(cs) + `}`)
	cmd := exec.Command(py, filepath.Join(jinjaCases, "ansible_eval.py"))
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = append(os.Environ(), "ANSIBLE_LOCAL_TEMP="+t.TempDir(), "ANSIBLE_HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ansible_eval.py: %v", err)
	}
	var answers []answer
	if err := json.Unmarshal(out, &answers); err != nil || len(answers) != len(cases) {
		t.Fatalf("ansible_eval.py gave %d answers for %d cases: %v", len(answers), len(cases), err)
	}
	for i := range answers {
		answers[i].Src = cases[i].Src
	}
	if os.Getenv("KUPGRADE_UPDATE_GOLDEN") == "1" {
		b, _ := json.MarshalIndent(answers, "", "  ")
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return answers
}

func ansiblePython() string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import ansible.template").Run() == nil {
			return py
		}
	}
	return ""
}

func readAnswers(t *testing.T, golden string, cases []jcase) []answer {
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Skipf("no recorded answers (%v): install ansible-core and run with KUPGRADE_UPDATE_GOLDEN=1", err)
	}
	var answers []answer
	if err := json.Unmarshal(b, &answers); err != nil {
		t.Fatal(err)
	}
	if len(answers) != len(cases) {
		t.Fatalf("%s has %d answers for %d cases: refresh it with ansible-core and KUPGRADE_UPDATE_GOLDEN=1", golden, len(answers), len(cases))
	}
	for i, a := range answers {
		if a.Src != cases[i].Src {
			t.Fatalf("%s answers %q where the table has %q: refresh it", golden, a.Src, cases[i].Src)
		}
	}
	return answers
}

// orderVars records the order of the table's variables as cases.yaml writes them.
func orderVars(t *testing.T, doc *yaml.Node, vars map[string]any) {
	t.Helper()
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "vars" {
			OrderYAML(root.Content[i+1], vars)
			return
		}
	}
	t.Fatal("cases.yaml has no vars")
}
