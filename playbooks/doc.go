// Package playbooks is kupgrade's playbook language: the types the runner executes, a strict YAML
// loader that keeps the file, line and column of every play and task, and the playbooks kupgrade
// ships for each upgrade step.
//
// Templates and conditions are parsed and rendered by package jinja (kupgrade's Ansible-flavoured
// Jinja2); this package only checks them at load, so that a typo is refused with its line.
//
// Guarantees:
//   - A playbook that loads is well formed: every key is known, every task has exactly one known
//     module with known argument names and choices (their types and required ones are Ansible's
//     argument spec's, applied when the task runs: ConvertArgs), and every
//     condition and template parses and uses only filters and tests kupgrade has (an unknown one,
//     ansible.utils.ipmath say, is refused by its whole name). Anything else is an *Error naming
//     file:line:col, with a "did you mean" hint for typos, of class fault.ErrBadInput (errors.Is).
//   - Module names are normalised: `ansible.builtin.command` and `command` load as "command";
//     filters and tests too (`ansible.builtin.bool`).
//   - Static structure is resolved at load: import_playbook, import_tasks, roles: and
//     import_role (with meta dependencies) are read and checked with the playbook, and so are
//     include_tasks and include_role whose file is named without a template; an error in any of
//     them names that file. An Ansible keyword, module, option or connection kupgrade does not
//     run is an error saying "not supported by kupgrade" with its whole name.
//   - A role whose meta dependencies (or import_role) lead back to itself is refused with the
//     chain of roles and the file:line naming each (TestRoleDependencyCycleRefused); an import
//     cycle of files is refused with the chain of files.
//   - No input makes the loader panic, nor the templating of whatever loads (FuzzParse).
package playbooks
