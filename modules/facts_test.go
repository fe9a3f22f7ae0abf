package modules

import (
	"reflect"
	"testing"
)

// TestFactsAsAnsibleNamesThem: the facts roles branch on come with Ansible's names, values and
// types: Debian's point release from /etc/debian_version (12.11, not 12), the major version,
// the release's code name, the service manager, memory in MB (memory_mb as setup's), vCPUs and
// the Python fact.
func TestFactsAsAnsibleNamesThem(t *testing.T) {
	out := "node1.example\n6.1.0-18-amd64\nx86_64\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n" +
		"VERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\n\n_debian_version=12.11\n_init=systemd\n_system=Linux\n" +
		"_meminfo=MemTotal:8153488 MemFree:1048576 Buffers:102400 Cached:2097152 SwapTotal:2097152 SwapFree:1048576 SwapCached:10240\n_vcpus=4\n_python=3 11 2 final 0 /usr/bin/python3\n"
	f := parseFacts(out)
	want := map[string]any{
		"ansible_hostname": "node1", "ansible_kernel": "6.1.0-18-amd64", "ansible_architecture": "x86_64",
		"ansible_os_family": "Debian", "ansible_distribution": "Debian",
		"ansible_distribution_version": "12.11", "ansible_distribution_major_version": "12",
		"ansible_distribution_release": "bookworm", "ansible_service_mgr": "systemd", "ansible_system": "Linux",
		"ansible_memtotal_mb": 7962, "ansible_processor_vcpus": 4, "ansible_python_version": "3.11.2",
	}
	for k, v := range want {
		if !reflect.DeepEqual(f[k], v) {
			t.Errorf("%s = %#v, want %#v", k, f[k], v)
		}
	}
	mem := f["ansible_memory_mb"].(map[string]any)
	if want := map[string]any{"total": 2048, "free": 1024, "used": 1024, "cached": 10}; !reflect.DeepEqual(mem["swap"], want) {
		t.Errorf("memory_mb.swap = %v, want %v", mem["swap"], want)
	}
	if want := map[string]any{"free": 3172, "used": 4790}; !reflect.DeepEqual(mem["nocache"], want) {
		t.Errorf("memory_mb.nocache = %v, want %v", mem["nocache"], want)
	}
	py, _ := f["ansible_python"].(map[string]any)
	if py["executable"] != "/usr/bin/python3" || !reflect.DeepEqual(py["version"].(map[string]any)["minor"], 11) {
		t.Errorf("ansible_python = %#v", py)
	}
	ubuntu := parseFacts("h\nk\nm\nID=ubuntu\nID_LIKE=debian\nVERSION_ID=\"22.04\"\nVERSION_CODENAME=jammy\n_init=init\n_python=\n")
	if ubuntu["ansible_distribution_version"] != "22.04" || ubuntu["ansible_distribution_major_version"] != "22" ||
		ubuntu["ansible_service_mgr"] != "sysvinit" || ubuntu["ansible_python"] != nil {
		t.Errorf("Ubuntu facts: %v", ubuntu)
	}
}
