package playbooks

// packageBackendArgs are the arguments Ansible's package hands on to the module it picks for the
// host (apt, dnf or yum in ansible-core 2.14), so that a role may write enablerepo on a task for
// its RedHat hosts beside its tasks for Debian ones. They load as Ansible loads them; the
// package module says at run time which of them the host's package manager does not take.
var packageBackendArgs = []string{
	// apt
	"allow_change_held_packages", "allow_downgrade", "allow_unauthenticated", "autoclean", "autoremove",
	"cache_valid_time", "clean", "deb", "default_release", "dpkg_options", "fail_on_autoremove", "force",
	"force_apt_get", "install_recommends", "lock_timeout", "only_upgrade", "policy_rc_d", "purge",
	"update_cache", "update_cache_retries", "update_cache_retry_max_delay", "upgrade",
	// dnf and yum
	"allowerasing", "bugfix", "cacheonly", "conf_file", "disable_excludes", "disable_gpg_check",
	"disable_plugin", "disablerepo", "download_dir", "download_only", "enable_plugin", "enablerepo",
	"exclude", "install_repoquery", "install_weak_deps", "installroot", "list", "nobest", "releasever",
	"security", "skip_broken", "sslverify", "update_only", "use_backend", "validate_certs",
}

// withPackageBackendArgs adds packageBackendArgs to package's own arguments.
func withPackageBackendArgs(args map[string]argType) map[string]argType {
	for _, k := range packageBackendArgs {
		args[k] = tAny
	}
	return args
}
