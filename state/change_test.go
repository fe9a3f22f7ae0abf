package state

import (
	"errors"
	"testing"
	"time"
)

func TestChangeConstructors(t *testing.T) {
	lease := LeaseSpec{Owner: "o", Operation: "op", TTL: time.Minute}
	host := OnHost("h", HostIdle, UpgradingControlPlane)
	clear := OnHost("h", UpgradingControlPlane, HostIdle)
	cases := []struct {
		name  string
		c     Change
		legal bool
	}{
		{"start a step", Start("c", ActorRunner, UpgradedNetworking, UpgradingFirstMaster, lease, host, WithTarget("v1.30.2")), true},
		{"retry from the failed twin", Start("c", ActorRunner, CordonFailed, CordonStarted, lease), true},
		{"start where no step starts", Start("c", ActorRunner, UpgradeStarted, UpgradingFirstMaster, lease), false},
		{"start a settled state", Start("c", ActorRunner, UpgradeStarted, DownloadedImages, lease), false},
		{"start without a lease owner", Start("c", ActorRunner, UpgradeStarted, DownloadingImages, LeaseSpec{}), false},
		{"start that releases", Start("c", ActorRunner, UpgradeStarted, DownloadingImages, lease, ReleaseLease()), false},
		{"start of no cluster", Start("", ActorRunner, UpgradeStarted, DownloadingImages, lease), false},
		{"start of no state", Start("c", ActorRunner, "bogus", DownloadingImages, lease), false},
		{"target without a host", Start("c", ActorRunner, UpgradeStarted, DownloadingImages, lease, WithTarget("v1")), false},
		{"start a batch's next host", StartHost("c", ActorRunner, UpgradingKubelets, "o", OnHost("w", HostIdle, UpgradingKubelet)), true},
		{"next host without a host", StartHost("c", ActorRunner, UpgradingKubelets, "o"), false},
		{"next host in a settled state", StartHost("c", ActorRunner, UpgradedNetworking, "o", host), false},
		{"finish", Finish("c", ActorRunner, DownloadingImages, DownloadedImages, "o", ReleaseLease()), true},
		{"finish a batch's host", Finish("c", ActorRunner, UpgradingKubelets, UpgradingKubelets, "o", OnHost("w", UpgradingKubelet, UpgradedKubelet)), true},
		{"finish elsewhere", Finish("c", ActorRunner, DownloadingImages, UpgradeComplete, "o"), false},
		{"finish in place without a host", Finish("c", ActorRunner, DownloadingImages, DownloadingImages, "o"), false},
		{"finish without owner", Finish("c", ActorRunner, DownloadingImages, DownloadedImages, ""), false},
		{"fail to the twin", Fail("c", ActorWatch, UpgradingFirstMaster, UpgradingFirstMasterFailed, NotLive(), clear, CountRecovery()), true},
		{"fail a kubelet host", Fail("c", ActorRunner, UpgradingKubelets, UpgradingKubelets, HeldBy("o"), OnHost("w", UpgradingKubelet, UpgradingKubeletFailed), KeepLease()), true},
		{"fail a host before its kubelet step", FailBefore("c", ActorRunner, UpgradingKubelets, "w", HostIdle, UpgradingKubeletFailed), true},
		{"fail a host before a control-plane step", FailBefore("c", ActorRunner, UpgradedNetworking, "c0", HostIdle, HostIdle), true},
		{"fail before the start a host in flight", FailBefore("c", ActorRunner, UpgradingKubelets, "w", UpgradingKubelet, UpgradingKubeletFailed), false},
		{"fail before the start in flight", FailBefore("c", ActorRunner, UpgradingFirstMaster, "c0", HostIdle, HostIdle), false},
		{"fail before the start to another status", FailBefore("c", ActorRunner, UpgradingKubelets, "w", HostIdle, DrainingNodeFailed), false},
		{"fail a kubelet host to idle", Fail("c", ActorRunner, UpgradingKubelets, UpgradingKubelets, HeldBy("o"), OnHost("w", UpgradingKubelet, HostIdle), KeepLease()), false},
		{"fail to another failed state", Fail("c", ActorCLI, UpgradingFirstMaster, CordonFailed, Forced()), false},
		{"fail a settled state", Fail("c", ActorCLI, UpgradedNetworking, UpgradedNetworking, Forced()), false},
		{"fail without a lease condition", Fail("c", ActorCLI, DownloadingImages, DownloadingImagesFailed, LeaseCond{}), false},
		{"fail a host to a busy status", Fail("c", ActorCLI, UpgradingFirstMaster, UpgradingFirstMasterFailed, Forced(), host), false},
		{"recovery attempt of a start", Start("c", ActorRecover, UpgradeStarted, DownloadingImages, lease, CountRecovery()), false},
		{"take over", TakeOver("c", ActorRunner, UpgradingFirstMaster, lease), true},
		{"take over a settled state", TakeOver("c", ActorRunner, UpgradedNetworking, lease), false},
		{"start completing", Start("c", ActorRunner, UncordonComplete, UpgradeCompleting, lease), true},
		{"retry completing", Start("c", ActorRunner, UpgradeCompletingFailed, UpgradeCompleting, lease), true},
		{"complete too early", Start("c", ActorRunner, UpgradedSecondMaster, UpgradeCompleting, lease), false},
		{"complete", Finish("c", ActorRunner, UpgradeCompleting, UpgradeComplete, "o", ReleaseLease()), true},
		{"complete unverified", Finish("c", ActorRunner, UncordonComplete, UpgradeComplete, "o", ReleaseLease()), false},
		{"fail completing", Fail("c", ActorWatch, UpgradeCompleting, UpgradeCompletingFailed, NotLive()), true},
		{"mark a kubelet", MarkKubelet("c", ActorRunner, UpgradedSecondMaster, "w", HostIdle, "v1.30.2", 0), true},
		{"mark a kubelet too early", MarkKubelet("c", ActorRunner, UpgradedNetworking, "w", HostIdle, "v1.30.2", 0), false},
		{"host only", HostOnly("c", ActorCLI, UpgradingKubelets, NotLive(), OnHost("w", HostIdle, UpgradingKubelet)), true},
		{"host only without a host", HostOnly("c", ActorCLI, UpgradingKubelets, NotLive()), false},
		{"zero", Change{}, false},
	}
	for _, tc := range cases {
		err := tc.c.Err()
		if tc.legal && err != nil {
			t.Errorf("%s: %v, want a legal change", tc.name, err)
		}
		if !tc.legal && !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: Err() = %v, want ErrBadInput", tc.name, err)
		}
	}
}

// What the store reads is what the constructor was given, and a caller cannot change a Change
// through what it reads.
func TestChangeReads(t *testing.T) {
	lease := LeaseSpec{Owner: "o", Operation: "op", TTL: time.Minute}
	c := Start("c", ActorRunner, UpgradedNetworking, UpgradingFirstMaster, lease, Because("start"),
		OnHost("h", HostIdle, UpgradingControlPlane), WithTarget("v1.30.2"), WithEvidence([]byte(`{"a":1}`)))
	if c.Cluster() != "c" || c.Actor() != ActorRunner || c.Reason() != "start" || c.From() != UpgradedNetworking ||
		c.To() != UpgradingFirstMaster || c.Host() != "h" || c.HostFrom() != HostIdle || c.HostTo() != UpgradingControlPlane ||
		c.Target() != "v1.30.2" || c.LeaseOwner() != "" || c.LeaseNotLive() || c.ReleasesLease() || c.CountsRecovery() {
		t.Fatalf("reads of a start: %+v", c)
	}
	if l, ok := c.AcquireLease(); !ok || l != lease {
		t.Fatalf("AcquireLease = %+v, %v", l, ok)
	}
	if _, ok := c.AllHostsTo(); ok {
		t.Fatal("a start sets every host's status")
	}
	c.Evidence()[0] = 'x'
	if string(c.Evidence()) != `{"a":1}` {
		t.Fatalf("evidence changed through its read: %s", c.Evidence())
	}
	f := Fail("c", ActorRecover, UpgradingFirstMaster, UpgradingFirstMasterFailed, NotLive(), CountRecovery())
	if !f.ReleasesLease() || !f.LeaseNotLive() || !f.CountsRecovery() {
		t.Fatalf("a failure must release the lease under no live lease and count the attempt: %+v", f)
	}
	if k := Fail("c", ActorRunner, UpgradingFirstMaster, UpgradingFirstMasterFailed, HeldBy("o"), KeepLease()); k.ReleasesLease() || k.LeaseOwner() != "o" {
		t.Fatalf("KeepLease: %+v", k)
	}
	if s, ok := Finish("c", ActorRunner, UpgradeCompleting, UpgradeComplete, "o").AllHostsTo(); !ok || s != HostIdle {
		t.Fatalf("complete sets every host to %q, %v; want idle", s, ok)
	}
	if _, ok := Finish("c", ActorRunner, DownloadingImages, DownloadedImages, "o").AllHostsTo(); ok {
		t.Fatal("a step other than complete clears every host's status")
	}
}
