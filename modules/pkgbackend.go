package modules

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// aptBuilt are the arguments of apt that kupgrade's apt implements.
var aptBuilt = []string{"name", "state", "update_cache", "cache_valid_time", "install_recommends", "purge",
	"autoremove", "default_release", "dpkg_options"}

// aptOthers are apt's other arguments in ansible-core 2.14: kupgrade's apt refuses them.
var aptOthers = []string{"allow_change_held_packages", "allow_downgrade", "allow_unauthenticated", "autoclean",
	"clean", "deb", "fail_on_autoremove", "force", "force_apt_get", "lock_timeout", "only_upgrade", "policy_rc_d",
	"update_cache_retries", "update_cache_retry_max_delay", "upgrade"}

// packageAptArgs are package's arguments as apt takes them on a host with apt, as Ansible's
// package hands its arguments to the module it picks: an argument apt does not take (dnf's
// enablerepo) fails the task as it fails Ansible's apt, one kupgrade's apt lacks is refused
// by name.
func packageAptArgs(args map[string]any) (map[string]any, string) {
	out := map[string]any{}
	var foreign []string
	for _, k := range slices.Sorted(maps.Keys(args)) {
		switch {
		case k == "use":
		case slices.Contains(aptBuilt, k):
			out[k] = args[k]
		case slices.Contains(aptOthers, k):
			return nil, fmt.Sprintf("package: argument %q of apt is not supported by kupgrade", k)
		default:
			foreign = append(foreign, k)
		}
	}
	if len(foreign) > 0 {
		return nil, fmt.Sprintf("Unsupported parameters for (ansible.legacy.apt) module: %s. Supported parameters include: %s.",
			strings.Join(foreign, ", "), strings.Join(slices.Sorted(slices.Values(append(slices.Clone(aptBuilt), aptOthers...))), ", "))
	}
	return out, ""
}
