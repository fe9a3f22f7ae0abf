package runner

import (
	"github.com/kupgrade/kupgrade/modules"

	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/kupgrade/kupgrade/playbooks"
)

// includeVars reads a file of variables on this machine and sets them as facts (under name:
// when given), templated with the host's variables. A relative file is looked for in the
// role's vars/, beside the tasks file, then beside the playbook (the loader's _search).
func (e *playExec) includeVars(_ context.Context, m *modules.Task, args map[string]any) (map[string]any, error) {
	file := modules.ArgStr(args, "file")
	var cands []string
	if filepath.IsAbs(file) {
		cands = []string{file}
	} else {
		search, _ := args["_search"].([]any)
		for _, d := range search {
			if s, ok := d.(string); ok {
				cands = append(cands, filepath.Join(s, file))
			}
		}
	}
	for _, p := range cands {
		raw, err := playbooks.LoadVars(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return failure("include_vars: " + err.Error()), nil
		}
		vals := make(map[string]any, len(raw))
		err = e.renderEach(raw, m.Vars, func(string) bool { return true }, func(k string, v any) { vals[k] = v })
		if err != nil {
			return failure(fmt.Sprintf("include_vars: %s: %v", p, err)), nil
		}
		facts := vals
		if name := modules.ArgStr(args, "name"); name != "" {
			facts = map[string]any{name: vals}
		}
		return map[string]any{"changed": false, "ansible_facts": facts,
			"ansible_included_var_files": []any{p}}, nil
	}
	return failure(fmt.Sprintf("include_vars: could not find %q in %v", file, cands)), nil
}
