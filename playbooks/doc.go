// Package playbooks is kupgrade's playbook language: the types the runner executes, a strict YAML
// loader that keeps the file, line and column of every play and task, the Jinja2 templating and
// conditions of `{{ }}` / `when:` / template files, and the playbooks kupgrade ships for each
// upgrade step.
//
// Templates are Jinja2 (github.com/nikolalohinski/gonja/v2) with Ansible 2.14's semantics:
// Ansible's filters and tests over Jinja's (jinja.go, filters*.go, jtests.go), Python's
// arithmetic (ops.go), `x if c else y` inside brackets and tests with keyword arguments, which
// gonja alone does not parse (syntax.go), Ansible's undefined variables and lazy templating (scope.go) and its
// conversion of results (template.go: a template that reads as a list, dict or boolean becomes
// one; "{{ var }}" holding a number keeps it). testdata/jinja is a table of real-world
// expressions that TestJinjaMatchesAnsible checks against Ansible's own Templar.
//
// Guarantees:
//   - A playbook that loads is well formed: every key is known, every task has exactly one known
//     module with known arguments and its required ones, every `notify` names a handler, and every
//     condition and template parses and uses only filters and tests kupgrade has (an unknown one,
//     ansible.utils.ipaddr say, is refused by its whole name). Anything else is an *Error naming
//     file:line:col, with a "did you mean" hint for typos, of class fault.ErrBadInput (errors.Is).
//   - Module names are normalised: `ansible.builtin.command` and `command` load as "command";
//     filters and tests too (`ansible.builtin.bool`).
//   - Static structure is resolved at load: import_playbook, import_tasks, roles: and
//     import_role (with meta dependencies) are read and checked with the playbook, and so are
//     include_tasks and include_role whose file is named without a template; an error in any of
//     them names that file. An Ansible keyword, module, option or connection kupgrade does not
//     run is an error saying "not supported by kupgrade" with its whole name.
//   - Templates never run shell or touch the host: they only read the variables they are given.
//     An undefined variable is an *UndefinedError ("'foo' is undefined"), except under default()
//     or `is defined`/`is undefined`.
//   - A variable whose value holds a template is rendered when it is read, with the same
//     variables, so play vars may refer to each other in any order; one that refers to itself is
//     an error naming the chain. Variables listed under DataKey (registered results, set_fact)
//     are data and never rendered again; through hostvars, only another host's text variables
//     are rendered (with that host's variables), its maps and lists are read as they are.
//   - Parsed templates are cached by source, so the runner evaluating one condition on many
//     hosts parses it once. Render, RenderString, RenderValue and Cond are safe for concurrent
//     use.
//   - No input makes the loader or the templating panic (FuzzParse, FuzzTemplate).
package playbooks
