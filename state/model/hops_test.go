package model

import (
	"strings"
	"testing"
)

// TestHopsModelHolds proves hops.pml: over every interleaving of two runners walking two hops,
// with stale views, kills, expiring leases, the audit and a forced fail, no assertion fails (H1-H4
// and the invariant) and no process is left blocked.
func TestHopsModelHolds(t *testing.T) {
	requireHolds(t, check{model: "hops.pml"}, "the hops of an upgrade", "hops")
}

// TestHopsBrokenVariantsFail takes one hop compare (or the fence's stamp) away at a time and
// expects Spin to find the stale runner it lets through; REACH shows that runs do complete.
func TestHopsBrokenVariantsFail(t *testing.T) {
	for _, c := range []struct {
		define string
		want   string // in pan's report
	}{
		{"NONEXTHOP", "assertion violated (hop==rh)"},            // H1: a stale next-hop undoes a hop
		{"NOSTARTHOP", "assertion violated (rh==hop)"},           // H2: a step of an older hop starts
		{"NOMARKHOP", "assertion violated (rv==(hop+1))"},        // H2: a host marked at a version it lacks
		{"NOLAST", "assertion violated ((hop==(2-1))&&(hv==2))"}, // H4: complete before the last hop
		{"NOSTAMP", "assertion violated (rh>=maxkhop)"},          // H3: an older hop's command after a newer one
		{"REACH", "assertion violated 0"},                        // a run reaches complete
	} {
		t.Run(c.define, func(t *testing.T) {
			t.Parallel()
			r := verify(t, check{model: "hops.pml", define: c.define})
			if r.errors == 0 || !strings.Contains(r.out, c.want) {
				t.Fatalf("-D%s: want %q and at least one error, Spin reported %d:\n%s", c.define, c.want, r.errors, r.out)
			}
			t.Logf("-D%s fails as it must: %s", c.define, c.want)
		})
	}
}
