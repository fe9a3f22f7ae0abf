package fencefile

import "strings"

// A stamp's cluster and owner fields each carry a second part after IdentitySep, so that a
// runner with another database, or a cluster named otherwise by another inventory, is still
// told apart, while the stamp's line keeps the format every kupgrade of Version reads:
//
//   - the cluster field is NAME#UID: the name the runner gave the cluster and the cluster's own
//     identity, the UID of its kube-system namespace (as kubectl reads it on a controller);
//     NAME alone when the UID could not be read, and in the stamps of older kupgrades;
//   - the owner field is OWNER#DATABASE: the runner (host:pid:nonce) and the database it
//     records the upgrade in (internal: state.DSN.Identity); OWNER alone in older stamps.
//
// An older kupgrade compares the whole cluster field with its cluster's name: it takes NAME#UID
// for another cluster and refuses the host while the stamp's claim is live, and takes it over
// once the claim has passed, as it does any other cluster's stamp.
const IdentitySep = "#"

// ClusterField is the stamp's cluster field for a cluster named name whose kube-system UID is
// uid ("" when unknown).
func ClusterField(name, uid string) string { return join(name, uid) }

// OwnerField is the stamp's owner field for runner owner recording in database db ("" when
// unknown).
func OwnerField(owner, db string) string { return join(owner, db) }

// SplitCluster reads a cluster field: the name and the UID ("" in an older stamp).
func SplitCluster(field string) (name, uid string) {
	i := strings.LastIndex(field, IdentitySep)
	if i < 0 {
		return field, ""
	}
	return field[:i], field[i+1:]
}

// SplitOwner reads an owner field: the runner and its database ("" in an older stamp).
func SplitOwner(field string) (owner, db string) {
	owner, db, _ = strings.Cut(field, IdentitySep)
	return owner, db
}

// join is a#b, each part one word without the separator; a alone when b is empty.
func join(a, b string) string {
	a = strings.ReplaceAll(Word(a), IdentitySep, "_")
	if b == "" {
		return a
	}
	return a + IdentitySep + strings.ReplaceAll(Word(b), IdentitySep, "_")
}
