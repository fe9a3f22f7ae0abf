package health

import (
	"encoding/json"
	"fmt"
)

// EtcdRevisionScript asks etcd, from a controller, for its revision now (etcdctl endpoint
// status, found and pointed at etcd as EtcdScript does). ReadRevision reads the output.
func EtcdRevisionScript(e EtcdConfig) string {
	return etcdctlPrelude + `run revision $E ` + etcdctlArgs(e) + ` endpoint status -w json
`
}

// ReadRevision reads EtcdRevisionScript's output: the highest revision an endpoint reported;
// the error names what failed.
func ReadRevision(out string) (int64, error) {
	secs := sections(out)
	if s, ok := secs["etcdctl"]; ok {
		return 0, fmt.Errorf("%w: %s", ErrNoEtcdctl, lastLine(s.body))
	}
	s, ok := secs["revision"]
	switch {
	case !ok:
		return 0, fmt.Errorf("etcdctl endpoint status did not run")
	case s.rc != 0:
		return 0, fmt.Errorf("etcdctl endpoint status: exit status %d: %s", s.rc, lastLine(s.body))
	}
	var st []struct {
		Status struct {
			Header struct {
				Revision int64 `json:"revision"`
			} `json:"header"`
		} `json:"Status"`
	}
	if err := json.Unmarshal([]byte(jsonPart(s.body, "[")), &st); err != nil {
		return 0, fmt.Errorf("etcdctl endpoint status: decode %q: %w", firstLine(s.body), err)
	}
	var rev int64
	for _, e := range st {
		rev = max(rev, e.Status.Header.Revision)
	}
	if rev <= 0 {
		return 0, fmt.Errorf("etcdctl endpoint status: no revision in %q", firstLine(s.body))
	}
	return rev, nil
}
