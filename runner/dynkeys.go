package runner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/playbooks"
)

// withKeywords renders the task's keywords written as templates (retries, ignore_errors,
// become, environment...) and become_user with the host's variables, and coerces each as
// Ansible does. It returns the task to run on h: t itself when nothing is templated, else a
// copy; or, when a keyword cannot be rendered or coerced, the task's failure naming it.
func (e *playExec) withKeywords(h *hostState, t *ctask) (*ctask, map[string]any) {
	if len(t.dyn) == 0 && !hasTemplate(t.becomeUser) {
		return t, nil
	}
	c := *t
	for _, k := range slices.Sorted(maps.Keys(t.dyn)) {
		if err := c.setKeyword(k, t.dyn[k], h.vars); err != nil {
			return t, tmplFailure(t, fmt.Sprintf("%s %q", k, t.dyn[k]), err)
		}
	}
	if hasTemplate(c.becomeUser) {
		u, err := jinja.RenderString(c.becomeUser, h.vars)
		if err != nil {
			return t, tmplFailure(t, fmt.Sprintf("become_user %q", c.becomeUser), err)
		}
		c.becomeUser = u
	}
	return &c, nil
}

// setKeyword sets one templated keyword from its rendered value.
func (c *ctask) setKeyword(key, src string, vars map[string]any) error {
	v, err := jinja.Render(src, vars)
	if err != nil {
		return err
	}
	switch key {
	case "environment":
		return c.setEnv(v)
	case "retries", "throttle":
		n, err := keywordInt(v)
		if key == "retries" {
			c.retries = n
		} else {
			c.throttle = n
		}
		return err
	}
	b, err := keywordBool(v)
	switch key {
	case "ignore_errors":
		c.ignore = b
	case "no_log":
		c.noLog = b
	case "run_once":
		c.runOnce = b
	case "become":
		c.become = &b
	case "check_mode":
		c.checkMode = &b
	case "diff":
		c.diff = &b
	case "ignore_unreachable":
		c.ignoreUnreachable = b
	}
	return err
}

// setEnv merges a mapping (environment: "{{ proxy_env }}") over the inherited environment.
func (c *ctask) setEnv(v any) error {
	m, ok := v.(map[string]any)
	if !ok && v != nil && v != "" {
		return fmt.Errorf("environment must be a mapping of variable names to values, not %s", jinja.Str(v))
	}
	env := maps.Clone(c.env)
	if env == nil {
		env = make(map[string]string, len(m))
	}
	for k, x := range m {
		env[k] = jinja.Str(x)
	}
	c.env = env
	return nil
}

// keywordBool is Ansible's strict boolean(): true, yes, on, y, t, 1 and their opposites.
func keywordBool(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case int:
		if x == 0 || x == 1 {
			return x == 1, nil
		}
	case float64:
		if x == 0 || x == 1 {
			return x == 1, nil
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "y", "yes", "on", "1", "true", "t":
			return true, nil
		case "n", "no", "off", "0", "false", "f":
			return false, nil
		}
	}
	return false, fmt.Errorf("%q is not a valid boolean; valid booleans are true, false, yes, no, on, off, 1, 0",
		jinja.Str(v))
}

// keywordInt is Python's int() of the value, as Ansible coerces an integer keyword: "3" and
// 3.9 (to 3) are whole numbers, "3.5" is not.
func keywordInt(v any) (int, error) {
	if n, ok := jinja.Int(v, 10); ok {
		return n, nil
	}
	return 0, fmt.Errorf("%q is not a whole number", jinja.Str(v))
}

// templatedKeys merges the task's templated keywords over those it inherits; a keyword the
// task sets itself, as a plain value, replaces the inherited template.
func templatedKeys(in map[string]string, t *playbooks.Task) map[string]string {
	if len(in) == 0 && len(t.Templated) == 0 {
		return nil
	}
	out := maps.Clone(in)
	if out == nil {
		out = map[string]string{}
	}
	for k, set := range map[string]bool{"become": t.Become != nil, "check_mode": t.CheckMode != nil,
		"diff":               t.Diff != nil,
		"ignore_unreachable": t.IgnoreUnreachable != nil, "ignore_errors": t.IgnoreErrors, "no_log": t.NoLog} {
		if set {
			delete(out, k)
		}
	}
	maps.Copy(out, t.Templated)
	return out
}

// serialSizes renders the play's serial entries written as templates (serial: "{{ batch |
// default('20%') }}") with the variables of the play's first host; one may give a list.
func serialSizes(serial []string, hosts []*hostState) ([]string, error) {
	if len(hosts) == 0 || !slices.ContainsFunc(serial, func(s string) bool { return hasTemplate(s) }) {
		return serial, nil
	}
	var out []string
	for _, s := range serial {
		v, err := jinja.Render(s, hosts[0].vars)
		if err != nil {
			return nil, fmt.Errorf("serial %q: %w", s, err)
		}
		if list, ok := v.([]any); ok {
			for _, x := range list {
				out = append(out, jinja.Str(x))
			}
			continue
		}
		out = append(out, jinja.Str(v))
	}
	return out, nil
}
