// Package docref finds the references to documents (*.md files) in kupgrade's sources and
// documents that point at no file of the repository: a comment citing a design note that lives
// elsewhere, or a link into docs/ that was renamed.
//
// Guarantees: Missing reads every Go file (tests included), SQL migration, Promela model and
// Markdown document under the root except the folders in Skipped, and reports each reference
// that names neither a file beside the citing one nor a file from the root, with its file and
// line. Web addresses are not references.
//
// StaleTestCommands reads the `go test` commands a document quotes (docs/reliability.md proves
// each property by one) and reports each whose package folder is gone or whose -run pattern
// matches no test, benchmark or fuzz target of those packages.
package docref
