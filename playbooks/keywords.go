package playbooks

// ansiblePlayKeys and ansibleTaskKeys are Ansible's playbook keywords (the "Playbook Keywords"
// page of ansible-core 2.14+). A key that is one of them but not one kupgrade runs is refused as
// "not supported by kupgrade" rather than reported as a typo.
var ansiblePlayKeys = []string{
	"any_errors_fatal", "become", "become_exe", "become_flags", "become_method", "become_user",
	"check_mode", "collections", "connection", "debugger", "diff", "environment", "fact_path",
	"force_handlers", "gather_facts", "gather_subset", "gather_timeout", "handlers", "hosts",
	"ignore_errors", "ignore_unreachable", "max_fail_percentage", "module_defaults", "name",
	"no_log", "order", "port", "post_tasks", "pre_tasks", "remote_user", "roles", "run_once",
	"serial", "strategy", "tags", "tasks", "throttle", "timeout", "vars", "vars_files", "vars_prompt",
}

var ansibleTaskKeys = []string{
	"action", "any_errors_fatal", "args", "async", "become", "become_exe", "become_flags",
	"become_method", "become_user", "changed_when", "check_mode", "collections", "connection",
	"debugger", "delay", "delegate_facts", "delegate_to", "diff", "environment", "failed_when",
	"ignore_errors", "ignore_unreachable", "local_action", "loop", "loop_control",
	"module_defaults", "name", "no_log", "notify", "poll", "port", "register", "remote_user",
	"retries", "run_once", "tags", "throttle", "timeout", "until", "vars", "when", "listen",
	"block", "rescue", "always",
}

// includeKeys are the keywords an include_tasks or include_role may carry: the others
// (register, notify, until...) act on a result an include does not have.
var includeKeys = []string{
	"name", "when", "loop", "with_items", "with_list", "with_dict", "with_first_found", "with_nested",
	"with_indexed_items", "with_flattened", "with_together", "with_sequence", "with_subelements",
	"with_random_choice", "with_fileglob", "loop_control", "vars", "tags",
	"ignore_errors", "become", "become_user", "environment", "no_log", "remote_user",
	"ignore_unreachable", "delegate_to", "connection",
}

// metaKeys are the keywords a meta task may carry.
var metaKeys = []string{"name", "when", "tags"}
