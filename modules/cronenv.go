package modules

import (
	"fmt"
	"strings"
)

// The variables of a crontab (cron with env=true): NAME="value" lines.

func (c *crontab) findEnv(name string) int {
	for i, l := range c.lines {
		if strings.HasPrefix(l, name+"=") {
			return i
		}
	}
	return -1
}

// addEnv is Ansible's add_env: at the top, or after or before another variable's line.
func (c *crontab) addEnv(decl, after, before string) error {
	other := after + before
	if other == "" {
		c.lines = insertAt(c.lines, 0, decl)
		return nil
	}
	i := c.findEnv(other)
	if i < 0 {
		return fmt.Errorf("Variable named '%s' not found.", other)
	}
	if after != "" {
		i++
	}
	c.lines = insertAt(c.lines, i, decl)
	return nil
}

// setEnv replaces every line of the variable name with decl, or removes them when decl is "".
func (c *crontab) setEnv(name, decl string) {
	var out []string
	for _, l := range c.lines {
		switch {
		case !strings.HasPrefix(l, name+"="):
			out = append(out, l)
		case decl != "":
			out = append(out, decl)
		}
	}
	c.lines = out
}

// env applies cron's env=true call; it reports whether the crontab changed.
func (c *crontab) env(name, job, after, before string, install bool) (bool, error) {
	if strings.Contains(name, " ") {
		return false, fmt.Errorf("Invalid name for environment variable")
	}
	decl := name + `="` + job + `"`
	i := c.findEnv(name)
	switch {
	case install && i < 0:
		return true, c.addEnv(decl, after, before)
	case install && c.lines[i] != decl:
		c.setEnv(name, decl)
		return true, nil
	case !install && i >= 0:
		c.setEnv(name, "")
		return true, nil
	}
	return false, nil
}
