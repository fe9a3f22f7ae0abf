// Package integration holds the tests that need Docker labs, a real
// Kubernetes or MariaDB. Every test file carries the build tag
// "integration", so `go test ./...` stays a unit run; the Makefile's
// integration, test-real, faults, test-galera and test-fleet targets pass
// `-tags integration`.
package integration
