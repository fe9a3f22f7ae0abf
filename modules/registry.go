package modules

import (
	"fmt"
	"slices"
)

// Registry is a table of modules by name. Build it with Builtins, add a caller's modules with
// Add, then hand it to a runner; it is read concurrently then, so add nothing after.
type Registry struct {
	mods map[string]Module
}

// Builtins returns a new Registry holding the built-in modules.
func Builtins() *Registry {
	return &Registry{mods: map[string]Module{
		"command":  modCommand,
		"shell":    modShell,
		"copy":     modCopy,
		"template": modTemplate,
		"fetch":    modFetch,
		"stat":     modStat,
		"slurp":    modSlurp,
		"file":     modFile,
		"wait_for": modWaitFor,
		"debug":    modDebug,
		"set_fact": modSetFact,
		"fail":     modFail,
		"assert":   modAssert,
		"setup":    modSetup,
		"ping":     modPing,

		"lineinfile":  modLineInFile,
		"blockinfile": modBlockInFile,
		"replace":     modReplace,

		"service":         modService,
		"systemd":         modSystemd,
		"systemd_service": modSystemd,

		"get_url": modGetURL,
		"uri":     modURI,
		"apt":     modApt,
		"package": modPackage,

		"unarchive": modUnarchive,

		"raw":    modRaw,
		"script": modScript,

		"sysctl": modSysctl,
		"mount":  modMount,
		"cron":   modCron,
		"group":  modGroup,

		"group_by": modGroupBy,

		"pause":               modPause,
		"wait_for_connection": modWaitForConnection,
		"reboot":              modReboot,
	}}
}

// Add registers mod under name. A name already taken is refused: a caller's module never
// replaces a built-in one.
func (r *Registry) Add(name string, mod Module) error {
	if _, taken := r.mods[name]; taken {
		return fmt.Errorf("add module %q: the name is taken", name)
	}
	if mod == nil {
		return fmt.Errorf("add module %q: no function", name)
	}
	r.mods[name] = mod
	return nil
}

// Lookup returns the module named name, or nil.
func (r *Registry) Lookup(name string) Module {
	if r == nil {
		return nil
	}
	return r.mods[name]
}

// Names lists the registered modules, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.mods))
	for n := range r.mods {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
