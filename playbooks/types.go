package playbooks

// Playbook is a loaded, validated playbook file: its plays in file order.
type Playbook struct {
	File  string
	Plays []*Play
}

// Play is one play. Tasks holds pre_tasks, tasks and post_tasks in that order (kupgrade flushes
// handlers once, at the end of the play).
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
	File              string
	Line, Column      int
}

// Task is one task, handler or block. A block has Module "" and Block set; Rescue and Always only
// appear on blocks.
type Task struct {
	Name   string
	Module string         // normalised: "command", never "ansible.builtin.command"
	Args   map[string]any // free-form command string is Args["_raw_params"]; `args:` merged in
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
	CheckMode                     *bool
	Vars                          map[string]any // task-level vars
	Listen                        []string       // handlers only: extra names notify may use
	Block, Rescue, Always         []*Task
	File                          string
	Line, Column                  int

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
	}
	return "task"
}
