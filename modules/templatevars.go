package modules

import (
	"maps"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// managedDefault is Ansible's ansible_managed when ANSIBLE_MANAGED_STR does not set another.
const managedDefault = "Ansible managed"

// withTemplateVars is vars with the variables Ansible's template adds for the file it renders
// (generate_ansible_template_vars), over the host's own as Ansible puts them: template_host
// (this machine's name), template_path (src as written), template_fullpath, template_uid (the
// file's owner), template_destpath and ansible_managed ("Ansible managed", or
// ANSIBLE_MANAGED_STR with its {host}, {uid} and {file}).
func withTemplateVars(vars map[string]any, src, full, dest string) map[string]any {
	out := maps.Clone(vars)
	if out == nil {
		out = map[string]any{}
	}
	host, _ := os.Hostname()
	uid := fileOwner(full)
	out["template_host"], out["template_path"], out["template_fullpath"] = host, src, full
	out["template_uid"], out["template_destpath"] = uid, dest
	managed := managedDefault
	if s := os.Getenv("ANSIBLE_MANAGED_STR"); s != "" {
		managed = strings.NewReplacer("{host}", host, "{uid}", uid, "{file}", src).Replace(s)
	}
	out["ansible_managed"] = managed
	return out
}

// fileOwner names the owner of the file at p, or gives its uid when it has no name.
func fileOwner(p string) string {
	fi, err := os.Stat(filepath.Clean(p))
	if err != nil {
		return ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	id := strconv.FormatUint(uint64(st.Uid), 10)
	if u, err := user.LookupId(id); err == nil {
		return u.Username
	}
	return id
}
