package health

import (
	"errors"
	"strings"
	"testing"
)

// ReadRevision reads etcdctl endpoint status's revision, the highest of the endpoints, and
// names what failed otherwise.
func TestReadRevision(t *testing.T) {
	ok := sectionMark + "revision rc=0\n{\"level\":\"warn\"}\n" +
		`[{"Endpoint":"a","Status":{"header":{"revision":400}}},{"Endpoint":"b","Status":{"header":{"revision":401}}}]` + "\n"
	if rev, err := ReadRevision(ok); err != nil || rev != 401 {
		t.Errorf("ReadRevision = %d, %v; want 401", rev, err)
	}
	if _, err := ReadRevision(sectionMark + "etcdctl rc=127\netcdctl: not found\n"); !errors.Is(err, ErrNoEtcdctl) {
		t.Errorf("no etcdctl: %v", err)
	}
	if _, err := ReadRevision(sectionMark + "revision rc=1\ncontext deadline exceeded\n"); err == nil || !strings.Contains(err.Error(), "exit status 1: context deadline exceeded") {
		t.Errorf("a failed etcdctl: %v", err)
	}
	if !strings.Contains(EtcdRevisionScript(EtcdConfig{}), "endpoint status -w json") {
		t.Errorf("the script does not ask etcdctl endpoint status")
	}
}
