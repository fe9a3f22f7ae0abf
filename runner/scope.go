package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/playbooks"
)

// scopeLayers adds to a host's play scope, over the play vars, what Ansible ranks above them:
// vars_files, then the play's role vars, kept as written like play vars (rendered when read);
// and the facts and registered results of earlier plays. Extra vars keep the last word.
func (e *playExec) scopeLayers(p *playbooks.Play, h *hostState, v map[string]any) error {
	for _, cands := range p.VarsFiles {
		vals, err := e.varsFile(cands, v)
		if err != nil {
			return fmt.Errorf("%s: vars_files: %w", h.name, err)
		}
		e.setRaw(v, vals)
	}
	e.setRaw(v, p.RoleVars)
	// set_fact values and registered results outlive their play, as in Ansible.
	for k, x := range e.kept[h.name] {
		if _, extra := e.po.ExtraVars[k]; !extra {
			v[k] = x
			h.facts[k] = true
		}
	}
	return nil
}

func (e *playExec) setRaw(v, vals map[string]any) {
	for k, x := range vals {
		if _, extra := e.po.ExtraVars[k]; !extra {
			v[k] = x
		}
	}
}

// keep saves what a host set during the play (facts, registered results) for the next plays.
func (e *playExec) keep(h *hostState) {
	if len(h.facts) == 0 {
		return
	}
	kept := e.kept[h.name]
	if kept == nil {
		kept = make(map[string]any, len(h.facts))
		e.kept[h.name] = kept
	}
	for k := range h.facts {
		if v, ok := h.vars[k]; ok {
			kept[k] = v
		}
	}
}

// renderEach renders the vals that ok accepts and no extra var overrides, and gives each to
// set. A value may use another of vals, in any order: what fails to render is tried again once
// the others are set.
func (e *playExec) renderEach(vals, vars map[string]any, ok func(string) bool, set func(string, any)) error {
	todo := make(map[string]any, len(vals))
	for k, x := range vals {
		if _, extra := e.po.ExtraVars[k]; !extra && ok(k) {
			todo[k] = x
		}
	}
	for len(todo) > 0 {
		var lastErr error
		progress := false
		for k, x := range todo {
			r, err := render(x, vars)
			if err != nil {
				lastErr = fmt.Errorf("%s: %w", k, err)
				continue
			}
			set(k, r)
			delete(todo, k)
			progress = true
		}
		if !progress {
			return lastErr
		}
	}
	return nil
}

// varsFile reads the first of cands (names rendered with v, relative to the playbook) that
// exists; files are read once per play.
func (e *playExec) varsFile(cands []string, v map[string]any) (map[string]any, error) {
	var tried []string
	for _, c := range cands {
		name, err := jinja.RenderString(c, v)
		if err != nil {
			return nil, err
		}
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(e.dir, name)
		}
		if vals, ok := e.varsFiles[path]; ok {
			return vals, nil
		}
		vals, err := playbooks.LoadVars(path)
		if err == nil {
			e.varsFiles[path] = vals
			return vals, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		tried = append(tried, path)
	}
	return nil, fmt.Errorf("none of %s exists", strings.Join(tried, ", "))
}
