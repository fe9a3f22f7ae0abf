// Package shellword quotes words for a POSIX shell and splits command lines into words with the
// shell's quoting rules, and nothing else of the shell: no variables, globs, pipes or
// redirections, as Ansible's command module and ssh's own arguments need.
//
// Guarantees:
//   - Quote(w) is one shell word that a POSIX sh reads back as exactly w, for any w (no byte is
//     special inside single quotes); words of safe characters stay bare so that the commands
//     people read in logs stay readable.
//   - Split(Join(words)) and SplitPlain(Join(words)) give back words, for any words (FuzzRoundTrip).
//   - Split reads a line as sh reads the words of `set -- LINE` when the line holds no
//     expansion, operator or comment (TestSplitAgreesWithSh).
//   - SplitPlain accepts only lines written with Quote's forms, whose words are the same under
//     any POSIX shell, and reads them as Split does.
//   - No input makes Split or SplitPlain panic.
package shellword
