package kubeadm

import (
	"strings"
	"testing"
	"time"
)

const sha1 = "1111111111111111111111111111111111111111111111111111111111111111"

func TestParseReport(t *testing.T) {
	cases := []struct {
		name  string
		out   string
		check func(t *testing.T, s Snapshot)
		err   string
	}{
		{name: "controller mid-upgrade", out: "config\t" + sha1 + "\t1700000000\n" +
			"manifest\tetcd\t    image: registry.k8s.io/etcd:3.5.12-0\n" +
			"manifest\tkube-apiserver\t    image: registry.k8s.io/kube-apiserver:v1.30.2\n" +
			"manifest\tkube-controller-manager\t    image: \"registry.k8s.io/kube-controller-manager:v1.29.6\"\n" +
			"manifest\tkube-scheduler\t  - image: my.registry:5000/kube-scheduler:v1.30.2@sha256:abcd\n" +
			"dir\tupgraded\t1700000100\t/etc/kubernetes/tmp/kubeadm-upgraded-manifests123\n" +
			"dir\tbackup\t1700000050\t/etc/kubernetes/tmp/kubeadm-backup-manifests-2024-01-01-10-00-00\n" +
			"dir\tbackup\t1700000200\t/etc/kubernetes/tmp/kubeadm-backup-manifests-2024-01-02-10-00-00\n" +
			"dir\tkubelet\t1700000300\t0\t/etc/kubernetes/tmp/kubeadm-kubelet-config1\n" +
			"dir\tkubelet\t1700000300\t1\t/etc/kubernetes/tmp/kubeadm-kubelet-config2\n" +
			"end\n",
			check: func(t *testing.T, s Snapshot) {
				if !s.ConfigExists || s.ConfigSHA256 != sha1 || !s.ConfigMtime.Equal(time.Unix(1700000000, 0)) {
					t.Errorf("config = %v %s %v", s.ConfigExists, s.ConfigSHA256, s.ConfigMtime)
				}
				want := map[string]string{"etcd": "3.5.12-0", "kube-apiserver": "v1.30.2",
					"kube-controller-manager": "v1.29.6", "kube-scheduler": "v1.30.2"}
				for k, v := range want {
					if s.Manifests[k] != v {
						t.Errorf("%s tag = %q, want %q", k, s.Manifests[k], v)
					}
				}
				if s.ControlPlaneVersion() != "v1.29.6" {
					t.Errorf("control plane version = %s, want the lowest", s.ControlPlaneVersion())
				}
				if s.BackupDirs[0] != "/etc/kubernetes/tmp/kubeadm-backup-manifests-2024-01-02-10-00-00" {
					t.Errorf("backups not newest first: %v", s.BackupDirs)
				}
				if len(s.UpgradedManifestsDirs) != 1 {
					t.Errorf("upgraded dirs = %v", s.UpgradedManifestsDirs)
				}
				if b := s.KubeletConfigBackups; len(b) != 2 || !strings.HasSuffix(b[0].Path, "config2") || !b[0].HasConfig || b[1].HasConfig {
					t.Errorf("kubelet backups = %+v", b)
				}
			}},
		{name: "worker with config missing", out: "config\tmissing\nend\n", check: func(t *testing.T, s Snapshot) {
			if s.ConfigExists || len(s.Manifests) != 0 || s.ControlPlaneVersion() != "" || s.BackupDirs == nil {
				t.Errorf("snapshot = %+v", s)
			}
		}},
		{name: "cut short", out: "config\tmissing\n", err: "cut short"},
		{name: "garbage", out: "hello\nend\n", err: "line 1"},
		{name: "bad sha", out: "config\tabc\t12\nend\n", err: "line 1"},
		{name: "bad mtime", out: "dir\tbackup\tnow\t/x\nend\n", err: "line 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := ParseReport([]byte(c.out))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, s)
		})
	}
}

func FuzzParseReport(f *testing.F) {
	f.Add([]byte("config\tmissing\nmanifest\tkube-apiserver\timage: a:v1\nend\n"))
	f.Add([]byte("dir\tkubelet\t1\t1\t/p\nend\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseReport(b)
		if err == nil {
			_ = Classify(s, s, "v1.0.0")
		}
	})
}

func TestImageTag(t *testing.T) {
	cases := map[string]string{
		"image: registry.k8s.io/kube-apiserver:v1.30.2":           "v1.30.2",
		"  image: 'localhost:5000/kube-apiserver:v1.30.2'":        "v1.30.2",
		"image: localhost:5000/kube-apiserver":                    "",
		"image: reg/kube-apiserver:v1.30.2@sha256:0123456789abcd": "v1.30.2",
	}
	for in, want := range cases {
		if got := imageTag(in); got != want {
			t.Errorf("imageTag(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestControlPlaneVersion(t *testing.T) {
	cases := []struct {
		tags [3]string
		want string
	}{
		{[3]string{"v1.30.14", "v1.31.10", "v1.31.10"}, "v1.30.14"},
		{[3]string{"v1.9.0", "v1.10.0", "v1.10.0"}, "v1.9.0"}, // by number, not by text
		{[3]string{"v1.31.0-rc.1", "v1.30.14", "v1.31.0"}, "v1.30.14"},
		{[3]string{"v1.31.0", "latest", "v1.31.0"}, "latest"}, // not a version: by text
		{[3]string{"", "v1.31.0", ""}, ""},                    // a manifest without a tag
	}
	for _, c := range cases {
		s := Snapshot{Manifests: map[string]string{"etcd": "3.5.15-0"}}
		for i, comp := range controlPlane {
			s.Manifests[comp] = c.tags[i]
		}
		if got := s.ControlPlaneVersion(); got != c.want {
			t.Errorf("%v: control-plane version %q, want %q", c.tags, got, c.want)
		}
	}
	if got := (Snapshot{Manifests: map[string]string{"etcd": "3.5.15-0"}}).ControlPlaneVersion(); got != "" {
		t.Errorf("etcd alone: %q, want none", got)
	}
}
