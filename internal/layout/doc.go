// Package layout holds tests of the repository's layout: rules about files
// that no single package can check on its own.
package layout
