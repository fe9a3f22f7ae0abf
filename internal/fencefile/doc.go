// Package fencefile is the one description of the host fence's files: where they live, the
// stamp a fenced command leaves, the generation announcements, and the shell functions that read
// and write them on a host. The runner's fence script (runner.Fence) is built from these
// functions, the kubeadm probe reads the stamp with Parse, and the simulated fleet
// (internal/sim) writes and reads it with Stamp.Line and Parse: the format is spelled here
// only.
//
// Guarantees:
//   - a stamp line carries a checksum (POSIX cksum) of its fields: an empty, torn or
//     hand-edited stamp fails Parse and the shell's fence_stamp, so no reader takes it for an
//     older stamp (TestParseRefusesDamagedStamps, TestShellReadsWhatGoWrites);
//   - a stamp names a task (its name) and a digest of the command, never the command's text:
//     a secret on a command line does not reach the host's stamp (TestLabelHoldsNoCommandText);
//   - the announcements file keeps one line per key, so a host in two clusters keeps the
//     announcement of each (TestShellAnnouncesPerKey).
package fencefile
