package playbooks

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// argType is what a module argument accepts when written literally; a `{{ }}` string is always
// accepted and checked when the runner renders it.
type argType int

const (
	tStr  argType = iota // any scalar
	tBool                // true/false/yes/no
	tInt                 // a whole number
	tList                // a string or a list
	tAny                 // anything
)

// module describes the arguments a module takes.
type module struct {
	args      map[string]argType
	aliases   map[string]string // alias -> argument
	oneOf     [][]string        // at least one of each group is required
	exclusive [][]string        // at most one of each group
	freeForm  bool              // a plain string is the command (_raw_params)
	anyNames  bool              // set_fact: any variable names
	choices   map[string][]string
	// unsupported are Ansible's arguments kupgrade does not implement: refused by name.
	unsupported []string
}

var modules = map[string]*module{
	"command": {
		args: map[string]argType{"_raw_params": tStr, "argv": tList, "chdir": tStr, "creates": tStr, "removes": tStr, "stdin": tStr,
			"stdin_add_newline": tBool},
		aliases:  map[string]string{"cmd": "_raw_params"},
		oneOf:    [][]string{{"_raw_params", "argv"}},
		freeForm: true, exclusive: [][]string{{"_raw_params", "argv"}},
		unsupported: []string{"strip_empty_ends", "expand_argument_vars"},
	},
	"shell": {
		args: map[string]argType{"_raw_params": tStr, "chdir": tStr, "creates": tStr, "removes": tStr, "executable": tStr, "stdin": tStr,
			"stdin_add_newline": tBool},
		aliases:     map[string]string{"cmd": "_raw_params"},
		oneOf:       [][]string{{"_raw_params"}},
		freeForm:    true,
		unsupported: []string{"strip_empty_ends"},
	},
	"copy": {
		args: withFileArgs(map[string]argType{"src": tStr, "content": tStr, "dest": tStr, "backup": tBool, "force": tBool, "remote_src": tBool,
			"validate": tStr}),
		oneOf:     [][]string{{"dest"}, {"src", "content"}},
		exclusive: [][]string{{"src", "content"}},
	},
	"fetch": {
		args:  map[string]argType{"src": tStr, "dest": tStr, "flat": tBool, "fail_on_missing": tBool, "validate_checksum": tBool},
		oneOf: [][]string{{"src"}, {"dest"}},
	},
	"stat": {
		args:    map[string]argType{"path": tStr, "follow": tBool, "get_checksum": tBool, "checksum_algorithm": tStr},
		aliases: map[string]string{"dest": "path", "name": "path"},
		oneOf:   [][]string{{"path"}},
		choices: map[string][]string{"checksum_algorithm": {"sha256"}},
	},
	"slurp": {
		args:    map[string]argType{"src": tStr},
		aliases: map[string]string{"path": "src"},
		oneOf:   [][]string{{"src"}},
	},
	"file": {
		args:    withFileArgs(map[string]argType{"path": tStr, "state": tStr, "recurse": tBool, "src": tStr, "force": tBool}),
		aliases: map[string]string{"dest": "path", "name": "path"},
		oneOf:   [][]string{{"path"}},
		choices: map[string][]string{"state": {"file", "directory", "absent", "touch", "link", "hard"}},
	},
	"template": {
		args: withFileArgs(map[string]argType{"src": tStr, "dest": tStr, "backup": tBool, "force": tBool,
			"validate": tStr}),
		oneOf: [][]string{{"src"}, {"dest"}},
	},
	"wait_for": {
		args: map[string]argType{"host": tStr, "port": tInt, "path": tStr, "timeout": tInt, "delay": tInt, "sleep": tInt,
			"state": tStr, "connect_timeout": tInt, "search_regex": tStr, "msg": tStr},
		oneOf:     [][]string{{"port", "path", "timeout"}},
		exclusive: [][]string{{"port", "path"}},
		choices:   map[string][]string{"state": {"started", "stopped", "present", "absent", "drained"}},
	},
	"debug": {
		args:      map[string]argType{"msg": tAny, "var": tStr, "verbosity": tInt},
		exclusive: [][]string{{"msg", "var"}},
	},
	"set_fact": {anyNames: true, args: map[string]argType{"cacheable": tBool}},
	"fail":     {args: map[string]argType{"msg": tAny}},
	"assert":   {args: map[string]argType{"that": tList, "fail_msg": tList, "msg": tList, "success_msg": tList, "quiet": tBool}, oneOf: [][]string{{"that"}}},
	"ping":     {args: map[string]argType{"data": tStr}},
	"group_by": {args: map[string]argType{"key": tStr, "parents": tList}},
	"pause": {args: map[string]argType{"minutes": tStr, "seconds": tStr, "prompt": tStr, "echo": tBool},
		exclusive: [][]string{{"minutes", "seconds"}}},
	"wait_for_connection": {args: map[string]argType{"connect_timeout": tInt, "delay": tInt, "sleep": tInt, "timeout": tInt}},
	"reboot": {args: map[string]argType{"boot_time_command": tStr, "connect_timeout": tInt, "msg": tStr, "post_reboot_delay": tInt,
		"pre_reboot_delay": tInt, "reboot_command": tStr, "reboot_timeout": tInt, "search_paths": tList, "test_command": tStr}},
	"lineinfile": {
		args: withFileArgs(map[string]argType{"path": tStr, "state": tStr, "regexp": tStr, "search_string": tStr, "line": tStr,
			"insertafter": tStr, "insertbefore": tStr, "backrefs": tBool, "create": tBool, "backup": tBool, "firstmatch": tBool, "validate": tStr}),
		aliases:   map[string]string{"dest": "path", "destfile": "path", "name": "path", "regex": "regexp", "value": "line"},
		oneOf:     [][]string{{"path"}},
		exclusive: [][]string{{"insertbefore", "insertafter"}, {"regexp", "search_string"}, {"backrefs", "search_string"}},
		choices:   map[string][]string{"state": {"present", "absent"}},
	},
	"blockinfile": {
		args: withFileArgs(map[string]argType{"path": tStr, "state": tStr, "marker": tStr, "block": tStr, "insertafter": tStr,
			"insertbefore": tStr, "create": tBool, "backup": tBool, "validate": tStr, "marker_begin": tStr, "marker_end": tStr}),
		aliases:   map[string]string{"dest": "path", "destfile": "path", "name": "path", "content": "block"},
		oneOf:     [][]string{{"path"}},
		exclusive: [][]string{{"insertbefore", "insertafter"}},
		choices:   map[string][]string{"state": {"present", "absent"}},
	},
	"replace": {
		args: withFileArgs(map[string]argType{"path": tStr, "regexp": tStr, "replace": tStr, "after": tStr, "before": tStr,
			"backup": tBool, "validate": tStr, "encoding": tStr}),
		aliases: map[string]string{"dest": "path", "destfile": "path", "name": "path"},
		oneOf:   [][]string{{"path"}, {"regexp"}},
		choices: map[string][]string{"encoding": {"utf-8", "utf8"}},
	},
	"systemd":         systemdSpec,
	"systemd_service": systemdSpec,
	"service": {
		args:        map[string]argType{"name": tStr, "state": tStr, "enabled": tBool, "use": tStr},
		oneOf:       [][]string{{"name"}, {"state", "enabled"}},
		choices:     map[string][]string{"state": {"started", "stopped", "restarted", "reloaded"}, "use": {"auto", "systemd", "sysvinit", "service"}},
		unsupported: []string{"pattern", "runlevel", "arguments", "args", "sleep"},
	},
	"get_url": {
		args: withFileArgs(map[string]argType{"url": tStr, "dest": tStr, "checksum": tStr, "force": tBool, "backup": tBool,
			"headers": tAny, "timeout": tInt, "validate_certs": tBool, "url_username": tStr, "url_password": tStr}),
		aliases:     map[string]string{"username": "url_username", "password": "url_password"},
		oneOf:       [][]string{{"url"}, {"dest"}},
		unsupported: []string{"tmp_dest", "unredirected_headers", "decompress", "ciphers", "use_netrc", "use_proxy", "use_gssapi", "client_cert", "client_key", "http_agent", "force_basic_auth", "sha256sum"},
	},
	"uri": {
		args: map[string]argType{"url": tStr, "method": tStr, "body": tAny, "body_format": tStr, "headers": tAny, "status_code": tAny,
			"return_content": tBool, "validate_certs": tBool, "timeout": tInt, "url_username": tStr, "url_password": tStr,
			"force_basic_auth": tBool, "follow_redirects": tStr, "creates": tStr, "removes": tStr},
		aliases:     map[string]string{"user": "url_username", "password": "url_password"},
		oneOf:       [][]string{{"url"}},
		choices:     map[string][]string{"body_format": {"raw", "json", "form-urlencoded"}, "follow_redirects": {"all", "safe", "none", "yes", "no", "urllib2"}},
		unsupported: []string{"dest", "src", "remote_src", "unix_socket", "ca_path", "client_cert", "client_key", "use_proxy", "use_gssapi", "unredirected_headers", "decompress", "ciphers", "use_netrc", "http_agent", "mode", "owner", "group"},
	},
	"apt": {
		args: map[string]argType{"name": tList, "state": tStr, "update_cache": tBool, "cache_valid_time": tInt, "install_recommends": tBool,
			"purge": tBool, "autoremove": tBool, "default_release": tStr, "dpkg_options": tStr},
		aliases: map[string]string{"package": "name", "pkg": "name", "update-cache": "update_cache", "install-recommends": "install_recommends",
			"default-release": "default_release"},
		oneOf:   [][]string{{"name", "update_cache", "cache_valid_time"}},
		choices: map[string][]string{"state": {"present", "absent", "latest", "installed", "removed"}},
		unsupported: []string{"deb", "upgrade", "only_upgrade", "allow_unauthenticated", "allow_downgrade", "allow_change_held_packages",
			"autoclean", "clean", "force", "force_apt_get", "lock_timeout", "policy_rc_d", "fail_on_autoremove"},
	},
	"package": {
		args:    withPackageBackendArgs(map[string]argType{"name": tList, "state": tStr, "use": tStr}),
		oneOf:   [][]string{{"name"}, {"state"}},
		choices: map[string][]string{"state": {"present", "absent", "latest", "installed", "removed"}},
	},
	"unarchive": {
		args: withFileArgs(map[string]argType{"src": tStr, "dest": tStr, "remote_src": tBool, "creates": tStr, "list_files": tBool,
			"extra_opts": tList, "exclude": tList, "validate_certs": tBool, "copy": tBool}),
		oneOf:       [][]string{{"src"}, {"dest"}},
		exclusive:   [][]string{{"copy", "remote_src"}},
		unsupported: []string{"keep_newer", "include", "decrypt", "io_buffer_size", "attributes"},
	},
	"raw": {
		args:     map[string]argType{"_raw_params": tStr, "executable": tStr},
		oneOf:    [][]string{{"_raw_params"}},
		freeForm: true,
	},
	"script": {
		args:        map[string]argType{"_raw_params": tStr, "creates": tStr, "removes": tStr, "chdir": tStr, "executable": tStr},
		aliases:     map[string]string{"cmd": "_raw_params"},
		oneOf:       [][]string{{"_raw_params"}},
		freeForm:    true,
		unsupported: []string{"decrypt"},
	},
	"sysctl": {
		args: map[string]argType{"name": tStr, "value": tStr, "state": tStr, "reload": tBool, "sysctl_set": tBool,
			"ignoreerrors": tBool, "sysctl_file": tStr},
		aliases: map[string]string{"key": "name", "val": "value"},
		oneOf:   [][]string{{"name"}},
		choices: map[string][]string{"state": {"present", "absent"}},
	},
	"mount": {
		args: map[string]argType{"path": tStr, "src": tStr, "fstype": tStr, "opts": tStr, "dump": tStr, "passno": tStr,
			"fstab": tStr, "boot": tBool, "backup": tBool, "state": tStr},
		aliases: map[string]string{"name": "path"},
		oneOf:   [][]string{{"path"}, {"state"}},
		choices: map[string][]string{"state": {"absent", "absent_from_fstab", "mounted", "present", "unmounted", "remounted"}},
	},
	"cron": {
		args: map[string]argType{"name": tStr, "user": tStr, "job": tStr, "cron_file": tStr, "state": tStr, "minute": tStr,
			"hour": tStr, "day": tStr, "month": tStr, "weekday": tStr, "special_time": tStr, "disabled": tBool, "env": tBool,
			"insertafter": tStr, "insertbefore": tStr},
		aliases:   map[string]string{"value": "job", "dom": "day", "dow": "weekday"},
		oneOf:     [][]string{{"name"}},
		exclusive: [][]string{{"insertafter", "insertbefore"}},
		choices: map[string][]string{"state": {"present", "absent"},
			"special_time": {"reboot", "yearly", "annually", "monthly", "weekly", "daily", "hourly"}},
		unsupported: []string{"backup"},
	},
	"group": {
		args:        map[string]argType{"name": tStr, "state": tStr, "gid": tInt, "system": tBool, "non_unique": tBool},
		oneOf:       [][]string{{"name"}},
		choices:     map[string][]string{"state": {"present", "absent"}},
		unsupported: []string{"local"},
	},
	"kubelet_config": {args: map[string]argType{"compare_to": tAny, "target": tStr, "root": tStr}},
}

var systemdSpec = &module{
	args: map[string]argType{"name": tStr, "state": tStr, "enabled": tBool, "force": tBool, "masked": tBool,
		"daemon_reload": tBool, "daemon_reexec": tBool, "scope": tStr, "no_block": tBool},
	aliases: map[string]string{"service": "name", "unit": "name", "daemon-reload": "daemon_reload", "daemon-reexec": "daemon_reexec"},
	oneOf:   [][]string{{"state", "enabled", "masked", "daemon_reload", "daemon_reexec"}},
	choices: map[string][]string{"state": {"started", "stopped", "restarted", "reloaded"}, "scope": {"system", "user", "global"}},
}

// withFileArgs adds the file attributes kupgrade sets (mode, owner, group) and the SELinux
// context it leaves alone where SELinux is off, as Ansible does, to a module's arguments;
// Ansible's others (attributes, unsafe_writes...) stay unknown, so they are refused.
func withFileArgs(args map[string]argType) map[string]argType {
	for _, k := range []string{"mode", "owner", "group", "seuser", "serole", "setype", "selevel"} {
		args[k] = tStr // the SELinux ones: modules.WithoutSELinux
	}
	return args
}

// moduleNames lists the modules, sorted, for messages and suggestions.
var moduleNames = func() []string {
	names := make([]string, 0, len(modules))
	for n := range modules {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}()

// collectionHomes are the collection names of the built-in modules Ansible ships outside
// ansible.builtin: ansible.posix.sysctl runs the built-in sysctl.
var collectionHomes = map[string]string{
	"ansible.posix.sysctl": "sysctl",
	"ansible.posix.mount":  "mount",
}

// normaliseModule strips the collection prefixes Ansible accepts for builtin modules, and
// names a built-in module by its short name when written with its collection's.
func normaliseModule(key string) string {
	if short, ok := collectionHomes[key]; ok {
		return short
	}
	for _, p := range []string{"ansible.builtin.", "ansible.legacy."} {
		if strings.HasPrefix(key, p) {
			return key[len(p):]
		}
	}
	return key
}

// checkArgs validates a module's argument names, returning the key at fault (for the position)
// and the message; "" when all is well. Aliases are renamed in place. Types, choices and
// required arguments are Ansible's argument spec's, checked when the task runs (ConvertArgs).
func (m *module) checkArgs(name string, args map[string]any) (string, string) {
	for alias, real := range m.aliases {
		v, ok := args[alias]
		if !ok {
			continue
		}
		if _, dup := args[real]; dup {
			return alias, fmt.Sprintf("%s: %q and %q are the same argument", name, alias, real)
		}
		delete(args, alias)
		args[real] = v
	}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if _, known := m.args[k]; !known {
			if slices.Contains(m.unsupported, k) {
				return k, fmt.Sprintf("%s: argument %q is not supported by kupgrade", name, k)
			}
			if m.anyNames {
				if !namePattern.MatchString(k) {
					return k, fmt.Sprintf("set_fact: %q is not a valid variable name", k)
				}
				continue
			}
			if hint := suggest(k, m.argNames()); hint != "" {
				return k, fmt.Sprintf("%s: unknown argument %q%s", name, k, hint)
			}
			// Not a typo of one it takes: most likely an Ansible option kupgrade lacks.
			return k, fmt.Sprintf("%s: argument %q is not supported by kupgrade (it takes %s)", name, k, strings.Join(m.argNames(), ", "))
		}
		// A literal choice kupgrade lacks is refused by name; some are Ansible's (uri's
		// form-multipart) that kupgrade does not run.
		if s, ok := args[k].(string); ok && m.choices[k] != nil && !strings.Contains(s, "{{") && !slices.Contains(m.choices[k], s) {
			return k, fmt.Sprintf("%s: %s must be one of %s, not %q", name, k, strings.Join(m.choices[k], ", "), s)
		}
	}
	if name == "set_fact" && len(args) == 0 {
		return "", "set_fact needs at least one variable"
	}
	return "", ""
}

func (m *module) argNames() []string {
	names := make([]string, 0, len(m.args)+len(m.aliases))
	for k := range m.args {
		if k != "_raw_params" {
			names = append(names, k)
		}
	}
	for k := range m.aliases {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func quoteJoin(names []string, sep string) string {
	q := make([]string, len(names))
	for i, n := range names {
		if n == "_raw_params" {
			n = "a command"
		} else {
			n = strconv.Quote(n)
		}
		q[i] = n
	}
	return strings.Join(q, sep)
}
