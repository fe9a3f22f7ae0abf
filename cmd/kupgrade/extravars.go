package main

import (
	"fmt"
	"github.com/kupgrade/kupgrade/jinja"
	"maps"
	"os"
	"strings"

	"github.com/kupgrade/kupgrade/internal/shellword"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/vault"
	"gopkg.in/yaml.v3"
)

// parseExtraVars reads every -e as ansible-playbook does: @FILE (YAML or JSON), an inline
// mapping ({"a": 1} or {a: 1}), or KEY=VALUE words (shell quoting groups a value's words).
// A VALUE is read as YAML, so -e n=3 is a number and -e 'l=[a, b]' a list. Later ones win.
func parseExtraVars(opts []string) (map[string]any, error) {
	out := map[string]any{}
	for _, opt := range opts {
		var vals map[string]any
		var err error
		switch t := strings.TrimSpace(opt); {
		case strings.HasPrefix(t, "@"):
			vals, err = extraVarsFile(t[1:])
		case strings.HasPrefix(t, "{"):
			vals, err = extraVarsMap(opt, []byte(t))
		default:
			vals, err = extraVarsWords(opt)
		}
		if err != nil {
			return nil, err
		}
		maps.Copy(out, vals)
	}
	return out, nil
}

func extraVarsFile(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-e @%s: %v: %w", path, pathError(err), state.ErrBadInput)
	}
	if data, err = vault.Open(data); err != nil {
		return nil, fmt.Errorf("-e @%s: %v; %s: %w", path, err, vault.Fix(err), state.ErrBadInput)
	}
	return extraVarsMap("@"+path, data)
}

func pathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// extraVarsMap reads a YAML (or JSON, which YAML reads too) mapping of variables.
func extraVarsMap(what string, data []byte) (map[string]any, error) {
	var vals map[string]any
	var n yaml.Node
	err := yaml.Unmarshal(data, &n)
	if err == nil {
		err = vault.DecryptNodes(&n)
	}
	if err == nil && n.Kind != 0 {
		err = n.Decode(&vals)
	}
	if err != nil {
		return nil, fmt.Errorf("-e %s: not a YAML or JSON mapping: %s: %w", clipArg(what), strings.TrimPrefix(err.Error(), "yaml: "), state.ErrBadInput)
	}
	jinja.OrderYAML(&n, vals)
	return vals, nil
}

func extraVarsWords(opt string) (map[string]any, error) {
	words, err := shellword.Split(opt)
	if err != nil {
		return nil, fmt.Errorf("-e %q: %v: %w", opt, err, state.ErrBadInput)
	}
	out := map[string]any{}
	for _, kv := range words {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("-e %q: want KEY=VALUE, a mapping or @FILE: %w", kv, state.ErrBadInput)
		}
		var val any
		if err := yaml.Unmarshal([]byte(v), &val); err != nil || val == nil {
			val = v
		}
		out[k] = val
	}
	return out, nil
}

func clipArg(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
