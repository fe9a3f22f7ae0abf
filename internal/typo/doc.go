// Package typo finds the likely intended word behind a misspelt one, for every "did you mean"
// kupgrade gives: the inventory and playbook loaders, and the CLI's states, hosts, fleets,
// health checks, hidden StarlingX aliases and argument choices.
//
// Guarantees: Closest compares without regard to case, counts a swap of two neighbours as one
// edit, suggests only a candidate within a typo's reach (one edit for words of up to three
// letters, two otherwise), and costs no more than linear work on long input (fuzzed strings).
package typo
