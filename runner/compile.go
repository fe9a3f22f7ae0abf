package runner

import (
	"github.com/kupgrade/kupgrade/modules"

	"maps"
	"slices"

	"github.com/kupgrade/kupgrade/playbooks"
)

// ctask is a task prepared once per play: module looked up, block keywords inherited, templated
// arguments detected. Every host runs the same ctask.
type ctask struct {
	t          *playbooks.Task
	name       string
	mod        modules.Module
	modName    string
	dynArgs    bool // some argument holds "{{": render per host
	when       []string
	tags       []string
	become     *bool
	becomeUser string
	env        map[string]string
	noLog      bool
	ignore     bool
	checkMode  *bool
	diff       *bool // the diff keyword, the task's over its block's and play's
	loopVar    string
	notify     []string
	listen     []string // handlers: the names that notify it
	// vars are the block vars then the task's own vars, pushed for the task (set_fact wins).
	vars              []map[string]any
	delegate          string // delegate_to, maybe a template
	remoteUser        string
	connection        string
	ignoreUnreachable bool
	delegateFacts     bool     // the facts of its result go to the delegate_to host
	itemHosts         []string // the delegate_to host of each loop item (on a per-host copy)
	retries, throttle int      // the task's, or its templates' values on the host running it
	runOnce           bool     // the task's, or its template's value on the batch's first host
	// dyn are the keywords written as templates, the task's own over its block's and play's
	// (playbooks.Task.Templated): withKeywords renders them per host.
	dyn     map[string]string
	roleDir string // the role the task comes from: its files/ and templates/
	in      inherited

	block, rescue, always []*ctask
	include               []*ctask // include_*: the included tasks when known at load
}

// inherited is what a block passes down to its tasks, with the runner's module table.
type inherited struct {
	mods       *modules.Registry
	when       []string
	tags       []string
	become     *bool
	becomeUser string
	env        map[string]string
	noLog      bool
	ignore     bool
	checkMode  *bool
	diff       *bool
	vars       []map[string]any
	delegate   string
	remoteUser string
	connection string
	ignoreUnr  bool
	delegFacts bool
	dyn        map[string]string
	roleDir    string
	rolePrefix string // "role : " before the names of a role's tasks
}

func compileTasks(ts []*playbooks.Task, in inherited) []*ctask {
	out := make([]*ctask, 0, len(ts))
	for _, t := range ts {
		out = append(out, compileTask(t, in))
	}
	return out
}

func compileTask(t *playbooks.Task, in inherited) *ctask {
	c := &ctask{
		t: t, name: in.rolePrefix + t.Label(), modName: t.Module,
		when:              append(slices.Clip(in.when), t.When...),
		tags:              append(slices.Clip(in.tags), t.Tags...),
		become:            in.become,
		becomeUser:        in.becomeUser,
		env:               in.env,
		noLog:             in.noLog || t.NoLog,
		ignore:            in.ignore || t.IgnoreErrors,
		checkMode:         in.checkMode,
		diff:              in.diff,
		loopVar:           t.LoopVar,
		notify:            t.Notify,
		listen:            append([]string{t.Name}, t.Listen...),
		vars:              in.vars,
		delegate:          in.delegate,
		remoteUser:        in.remoteUser,
		connection:        in.connection,
		roleDir:           in.roleDir,
		in:                in,
		ignoreUnreachable: in.ignoreUnr,
		delegateFacts:     in.delegFacts,
		retries:           t.Retries,
		throttle:          t.Throttle,
		runOnce:           t.RunOnce,
		dyn:               templatedKeys(in.dyn, t),
	}
	c.override(t)
	if t.IsBlock() {
		sub := c.inherit()
		if t.Role != nil {
			sub.roleDir, sub.rolePrefix = t.Role.Dir, t.Role.Name+" : "
		}
		c.block = compileTasks(t.Block, sub)
		c.rescue = compileTasks(t.Rescue, sub)
		c.always = compileTasks(t.Always, sub)
		return c
	}
	if t.Include != nil && t.Include.Tasks != nil {
		c.include = compileTasks(t.Include.Tasks, c.includeScope())
	}
	c.mod = in.mods.Lookup(t.Module)
	if c.mod == nil && t.ModuleSource != "" {
		c.mod = modules.Python(t.Module, t.ModuleSource, playbooks.PythonRoots())
	}
	c.dynArgs = hasTemplate(t.Args)
	return c
}

// override applies the task's own keywords over what it inherited.
func (c *ctask) override(t *playbooks.Task) {
	if t.Become != nil {
		c.become = t.Become
	}
	if t.BecomeUser != "" {
		c.becomeUser = t.BecomeUser
	}
	if len(t.Environment) > 0 {
		env := maps.Clone(c.env)
		if env == nil {
			env = map[string]string{}
		}
		maps.Copy(env, t.Environment)
		c.env = env
	}
	if t.CheckMode != nil {
		c.checkMode = t.CheckMode
	}
	if t.Diff != nil {
		c.diff = t.Diff
	}
	if c.loopVar == "" {
		c.loopVar = "item"
	}
	if len(t.Vars) > 0 {
		c.vars = append(slices.Clip(c.vars), t.Vars)
	}
	if t.DelegateTo != "" {
		c.delegate = t.DelegateTo
	}
	if t.RemoteUser != "" {
		c.remoteUser = t.RemoteUser
	}
	if t.Connection != "" {
		c.connection = t.Connection
	}
	if t.IgnoreUnreachable != nil {
		c.ignoreUnreachable = *t.IgnoreUnreachable
	}
	if t.DelegateFacts != nil {
		c.delegateFacts = *t.DelegateFacts
	}
}

// inherit is what a block passes to its tasks.
func (c *ctask) inherit() inherited {
	return inherited{mods: c.in.mods, when: c.when, tags: c.tags, become: c.become, becomeUser: c.becomeUser,
		env: c.env, noLog: c.noLog, ignore: c.ignore, checkMode: c.checkMode, diff: c.diff, vars: c.vars,
		delegate: c.delegate, remoteUser: c.remoteUser, connection: c.connection, ignoreUnr: c.ignoreUnreachable,
		delegFacts: c.delegateFacts, dyn: c.dyn, roleDir: c.roleDir, rolePrefix: c.in.rolePrefix}
}

// includeScope is what an include passes to the tasks it brings in: as a block does, except
// its own when (decided once, when it runs), tags (they select the include, not its tasks)
// and vars (its params, pushed for the whole include).
func (c *ctask) includeScope() inherited {
	in := c.inherit()
	in.when, in.tags, in.vars = c.in.when, c.in.tags, c.in.vars
	return in
}

// selected applies --tags and --skip-tags to a task's own and inherited tags, as Ansible does:
// "always" runs unless skipped by name, "never" runs only when asked for by one of its tags.
func selected(tags []string, only, skip []string) bool {
	if len(skip) > 0 {
		for _, t := range tags {
			if slices.Contains(skip, t) {
				return false
			}
		}
		if slices.Contains(skip, "all") && !slices.Contains(tags, "always") {
			return false
		}
	}
	never := slices.Contains(tags, "never")
	if len(only) == 0 || slices.Contains(only, "all") {
		return !never
	}
	for _, t := range tags {
		if t == "never" {
			continue
		}
		if slices.Contains(only, t) {
			return true
		}
	}
	if never {
		return slices.Contains(only, "never")
	}
	if slices.Contains(tags, "always") {
		return true
	}
	if slices.Contains(only, "tagged") {
		return len(tags) > 0
	}
	return slices.Contains(only, "untagged") && len(tags) == 0
}
