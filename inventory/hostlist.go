package inventory

import (
	"os"
	"path/filepath"
	"strings"
)

// hostList tells a host list given to -i ("web1,web2:2222," or "localhost,") from a file, as
// Ansible's host_list plugin does: no such file, no slash, and a comma. The command line may
// have made it absolute against the working folder; that folder is dropped again.
func hostList(source string) (string, bool) {
	if _, err := os.Stat(source); !os.IsNotExist(err) {
		return "", false
	}
	list := source
	if filepath.IsAbs(source) {
		if wd, err := os.Getwd(); err != nil || filepath.Dir(source) != wd {
			return "", false
		}
		list = filepath.Base(source)
	}
	return list, strings.Contains(list, ",") && !strings.Contains(list, "/")
}

// readHostList adds each name of a host list (host or host:port) to the ungrouped group. A host
// list has no folder, so no group_vars/ or host_vars/ of its own.
func (p *parser) readHostList(list string) error {
	p.file, p.source = list, list
	var lines []string
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name != "" {
			lines = append(lines, name)
		}
	}
	return p.parseINI([]byte(strings.Join(lines, "\n")))
}
