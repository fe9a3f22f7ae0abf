// Package playbooks is kupgrade's playbook language: the types the runner executes, a strict YAML
// loader that keeps the file, line and column of every play and task, the templating and
// conditions of `{{ }}` / `when:` (expr-lang/expr with Ansible's common filters and tests), and the
// playbooks kupgrade ships for each upgrade step.
//
// Guarantees:
//   - A playbook that loads is well formed: every key is known, every task has exactly one known
//     module with known arguments and its required ones, every `notify` names a handler, and every
//     condition and `{{ }}` expression compiles. Anything else is an *Error naming
//     file:line:col, with a "did you mean" hint for typos, of class fault.ErrBadInput (errors.Is).
//   - Module names are normalised: `ansible.builtin.command` and `command` load as "command".
//   - Static structure is resolved at load: import_playbook, import_tasks, roles: and
//     import_role (with meta dependencies) are read and checked with the playbook, and so are
//     include_tasks and include_role whose file is named without a template; an error in any of
//     them names that file. An Ansible keyword, module, option or connection kupgrade does not
//     run is an error saying "not supported by kupgrade" with its whole name.
//   - Templates never run shell or touch the host: they only read the variables they are given.
//     An undefined variable is an error naming it, except under `default(...)` or `is defined`.
//   - Compiled expressions are cached by source, so the runner evaluating one condition on many
//     hosts compiles it once. Render, RenderString and Cond are safe for concurrent use.
//   - No input makes the loader or the templating panic (FuzzParse).
package playbooks
