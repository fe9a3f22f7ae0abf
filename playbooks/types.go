package playbooks

// Playbook is a loaded, validated playbook file: its plays in file order.
type Playbook struct {
	File  string
	Plays []*Play
	// Warnings are Ansible's warnings about the playbook's forms, each with its place, for
	// the CLI to print before running (a deprecated include:).
	Warnings []string
}

// Play is one play. Tasks holds pre_tasks, the roles' blocks, tasks and post_tasks in that order,
// with the handler flushes Ansible makes between them (meta flush_handlers tasks); the runner
// flushes once more at the end of the play.
type Play struct {
	Name              string
	Hosts             string   // a --limit style pattern; a YAML list is joined with ":"
	Serial            []string // batch sizes: "2", "30%"; empty means all hosts at once
	Become            *bool    // nil: not set, inherit the host's ansible_become
	BecomeUser        string
	Vars              map[string]any
	GatherFacts       bool
	Tasks, Handlers   []*Task
	AnyErrorsFatal    bool
	MaxFailPercentage *float64
	// VarsFiles are the play's vars_files in order; each entry is a list of candidates, the
	// first that exists is read (Ansible's list-in-a-list form). Names may be templates.
	VarsFiles           [][]string
	RemoteUser          string            // the user to connect as when the host sets no ansible_user
	Connection          string            // "local", or "" / "ssh": where the host sets no ansible_connection
	Environment         map[string]string // inherited by every task
	Tags                []string          // inherited by every task
	IgnoreUnreachable   bool
	NoLog, IgnoreErrors bool  // inherited by every task
	CheckMode           *bool // inherited by every task
	Diff                *bool // diff: inherited by every task, over --diff
	// Templated holds the play keywords written as a template (become, environment...),
	// rendered per host for each task, as the tasks' own are.
	Templated map[string]string
	// RoleDefaults and RoleVars are the defaults/ and vars/ of the play's roles (roles:,
	// import_role), merged in the order the roles run: Ansible exposes them to the whole play.
	RoleDefaults, RoleVars map[string]any
	File                   string
	Line, Column           int
}

// Task is one task, handler or block. A block has Module "" and Block set; Rescue and Always only
// appear on blocks.
type Task struct {
	Name   string
	Module string // normalised: "command", never "ansible.builtin.command"
	// ModuleSource is the Python file of a module kupgrade has not built in (ansible-core's,
	// a collection's, a library/ folder's): the runner sends it to the host's Python.
	ModuleSource string
	Args         map[string]any // free-form command string is Args["_raw_params"]; `args:` merged in
	// Register names the variable the result is stored in.
	Register                      string
	When, FailedWhen, ChangedWhen []string // each an expr condition; a list means all of them
	Until                         string
	Retries                       int
	Delay                         string // seconds, possibly a template
	IgnoreErrors                  bool
	Timeout                       string // seconds, possibly a template; "" means none
	Become                        *bool
	BecomeUser                    string
	Environment                   map[string]string
	NoLog, RunOnce                bool
	Tags, Notify                  []string
	Loop                          any    // []any, or a "{{ }}" string that renders to a list
	LoopVar                       string // loop_control.loop_var, "item" by default
	LoopControl                   LoopControl
	CheckMode                     *bool
	Diff                          *bool          // diff: whether file-changing modules return before/after
	Vars                          map[string]any // task-level vars
	Listen                        []string       // handlers only: extra names notify may use
	Block, Rescue, Always         []*Task
	// Meta is the action of a `meta:` task (flush_handlers, end_play, end_host, end_batch, noop).
	Meta              string
	DelegateTo        string // a host name or a template; "localhost" runs on this machine
	RemoteUser        string
	Connection        string
	IgnoreUnreachable *bool
	// Async bounds the task's run in seconds (maybe a template), as Ansible's async with a poll
	// above 0: past it the task fails with Ansible's message. Poll is kept for its check only.
	Async, Poll string
	// DelegateFacts gives the facts a delegated task returns to the delegate_to host.
	DelegateFacts *bool
	// Throttle caps how many hosts run the task at once (0: the forks).
	Throttle int
	// Templated holds the keywords written as a template (retries, ignore_errors, become,
	// environment...: templatedKeys), rendered per host when the task runs.
	Templated map[string]string
	// LoopDict marks with_dict: the loop renders to a mapping, iterated as {key, value} items.
	LoopDict bool
	// LoopWith is the lookup of a with_* loop ("items" for with_items, "nested"...), "" for
	// loop: the runner turns the rendered Loop (the lookup's terms) into items as it does.
	LoopWith string
	// Params are include or role parameters, set for the tasks of the block they sit on. They
	// rank above set_fact, as Ansible's include and role params do.
	Params map[string]any
	// Role is set on the block that holds a role's tasks: its files/ and templates/ are looked
	// in first by copy and template.
	Role *Role
	// Include is set on an include_tasks or include_role task, decided per host when it runs.
	Include      *Include
	File         string
	Line, Column int

	phase string // pre_tasks, tasks or post_tasks while loading
}

// IsBlock reports whether t is a block rather than a module call.
func (t *Task) IsBlock() bool { return t.Block != nil }

// Label is what a person reads for the task: its name, else its module.
func (t *Task) Label() string {
	switch {
	case t.Name != "":
		return t.Name
	case t.Module != "":
		return t.Module
	case t.IsBlock():
		return "block"
	case t.Meta != "":
		return "meta"
	case t.Include != nil && t.Include.File != "":
		return "include_tasks"
	case t.Include != nil:
		return "include_role"
	}
	return "task"
}

// LoopControl is the rest of loop_control: index_var, label (shown, never registered), pause
// (seconds between items) and extended (ansible_loop).
type LoopControl struct {
	IndexVar, Label, Pause string
	Extended               bool
	// NoAllItems is extended_allitems: false: ansible_loop without allitems (a long loop's
	// items are not copied into every item's result).
	NoAllItems bool
}

// Role is one role as loaded: its folder and variables.
type Role struct {
	Name string
	Dir  string
	// Defaults and Vars are defaults/main.yml and vars/main.yml (or the *_from files).
	Defaults, Vars map[string]any
	// Private roles (include_role without public) keep their defaults and vars to their own
	// tasks; the others' are the play's (Play.RoleDefaults, Play.RoleVars).
	Private bool
}

// Include is an include_tasks or include_role task. The runner evaluates its when and loop per
// host, then runs Tasks (loaded with the playbook when the file name has no template, else
// loaded by the runner with LoadTasks).
type Include struct {
	File  string // include_tasks: the file as written, maybe a template
	Dirs  []string
	Tasks []*Task // the included tasks, or a role's block; nil when File is a template
	// Public makes an included role's defaults and vars visible after it (include_role public).
	Public bool
}
