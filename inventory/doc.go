// Package inventory reads Ansible's static inventories, YAML and INI, so an inventory that works
// with ansible-playbook works with kupgrade unchanged.
//
// It understands YAML's `all`, nested `children`, `hosts` (null or with inline variables) and
// `vars`; INI's [group], [group:vars] and [group:children] sections, host lines with
// name=value variables read as Python literals, host:port and host ranges; a folder of such
// files; several sources merged in order (LoadAll); the `host_vars/` and `group_vars/` folders
// beside each source (a file NAME, NAME.yml, NAME.yaml or NAME.json, or a folder NAME/ whose YAML
// files are merged in name order). It resolves every host's variables with Ansible's precedence
// (lowest first):
//
//	group vars written in the inventory files: all, then the other groups from the
//	  shallowest to the deepest (ansible_group_priority, then the name, break ties)
//	group_vars/all of each source, then group_vars/GROUP of each source in the same group order
//	inventory_file and inventory_dir (the file that first defined the host)
//	host vars written in the inventory files
//	host_vars/HOST of each source
//
// A variable replaces a lower one as a whole (Ansible's default hash_behaviour=replace).
//
// What it guarantees: Load either returns an inventory in which every host is reachable by the
// accessors (Port, KeyFile, ProxyJump, Personality...) without surprises, or an *Error of class
// fault.ErrBadInput (errors.Is) whose message names the file, line and column of the mistake
// and how to fix it. No input makes Load panic (FuzzLoad checks this). Unknown keys inside a group,
// a group that is its own ancestor, a list where a map belongs, a port that is not a number and a
// ProxyCommand it cannot honour are all errors, never silently ignored.
//
// Select implements ansible's --limit patterns (group, host, globs, ~regex, a:b, a,b, a:!b,
// a:&b, subscripts web[0], web[-1], web[1:3]); a pattern term that matches nothing is an error, not an empty run.
//
// The package imports nothing else of kupgrade but the leaf helpers of internal/.
package inventory
