// Package fault defines kupgrade's error classes once, for every package: the sentinels that
// errors are wrapped with (%w) or marked with (Mark), and that cmd maps to the exit statuses of
// docs/cli.md in one place. It imports nothing of ours, so inventory, playbooks, runner, sshconn and
// state may all use it without depending on each other.
//
// Guarantees: a class is found with errors.Is, never by asserting a type or a method; error
// types that carry details (a file and line, a host) report their class through an
// Is(target error) bool method. state's sentinels are these same values.
package fault
