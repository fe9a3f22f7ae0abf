package recovery

import (
	"fmt"

	"github.com/kupgrade/kupgrade/state"
)

// BadRowFix says, for a person, why the audit left b alone and how to put it right: a state
// that is not a state only a person can name (an UPDATE); anything else `upgrade failed --force`
// fails whatever the unreadable times hold.
func BadRowFix(b state.BadRow) string {
	for _, re := range state.RowErrors(b.Err) {
		if re.Column == "state" {
			return "its rows cannot be read, so the audit leaves it alone; " + notAStateFix(b.Cluster)
		}
	}
	return fmt.Sprintf("its rows cannot be read, so the audit leaves it alone; correct the column with an UPDATE, "+
		"or fail its operation with `kupgrade upgrade failed --force --cluster %s`", b.Cluster)
}

// notAStateFix is the one way out of a state that is not a state: nobody but a person can tell
// which state it stands for.
func notAStateFix(cluster string) string {
	return fmt.Sprintf("set the intended state by hand, e.g. UPDATE kube_upgrade SET state = 'upgrading-first-master-failed' WHERE cluster = '%s'", cluster)
}

// notAState refuses to fail an upgrade whose state is not a state.
func notAState(cluster string, s state.State) error {
	re := &state.RowError{Cluster: cluster, Table: "kube_upgrade", Column: "state", Err: fmt.Errorf("%q is not a state", s)}
	return fmt.Errorf("%w: it cannot be failed, since nobody can tell which state it stands for; %s: %w",
		re, notAStateFix(cluster), state.ErrRefused)
}
