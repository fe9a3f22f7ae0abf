package lab

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// debianMirror returns the Debian archive this machine's apt uses, so the image is built from
// the same mirror (none is written down here). KUPGRADE_LAB_MIRROR overrides it.
func debianMirror() (string, error) {
	if m := os.Getenv("KUPGRADE_LAB_MIRROR"); m != "" {
		return m, nil
	}
	files, _ := filepath.Glob("/etc/apt/sources.list.d/*.sources")
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			if m := mirrorFromDeb822(string(data)); m != "" {
				return m, nil
			}
		}
	}
	lists, _ := filepath.Glob("/etc/apt/sources.list.d/*.list")
	for _, f := range append([]string{"/etc/apt/sources.list"}, lists...) {
		if data, err := os.ReadFile(f); err == nil {
			if m := mirrorFromList(string(data)); m != "" {
				return m, nil
			}
		}
	}
	return "", errors.New("find a Debian mirror: no http(s) deb source of the main archive in /etc/apt (set KUPGRADE_LAB_MIRROR)")
}

// mirrorFromDeb822 reads deb822 stanzas (Types, URIs, Suites) and returns the first http(s) URI
// of a "deb" stanza for a main suite (not -security, -updates or -backports).
func mirrorFromDeb822(text string) string {
	for _, stanza := range strings.Split(text, "\n\n") {
		fields := map[string]string{}
		for _, line := range strings.Split(stanza, "\n") {
			if strings.HasPrefix(line, "#") {
				continue
			}
			if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, " ") {
				fields[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
		if !hasWord(fields["types"], "deb") || strings.EqualFold(fields["enabled"], "no") {
			continue
		}
		if m := pickMirror(strings.Fields(fields["uris"]), strings.Fields(fields["suites"])); m != "" {
			return m
		}
	}
	return ""
}

// mirrorFromList reads one-line-style sources: deb [options] URI SUITE COMPONENTS...
func mirrorFromList(text string) string {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || f[0] != "deb" {
			continue
		}
		f = f[1:]
		if strings.HasPrefix(f[0], "[") {
			for len(f) > 0 && !strings.HasSuffix(f[0], "]") {
				f = f[1:]
			}
			if len(f) > 0 {
				f = f[1:]
			}
		}
		if len(f) >= 2 {
			if m := pickMirror(f[:1], f[1:2]); m != "" {
				return m
			}
		}
	}
	return ""
}

func pickMirror(uris, suites []string) string {
	main := false
	for _, s := range suites {
		main = main || !strings.Contains(s, "-")
	}
	for _, u := range uris {
		if main && (strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) {
			return strings.TrimSuffix(u, "/")
		}
	}
	return ""
}

func hasWord(list, word string) bool {
	for _, w := range strings.Fields(list) {
		if w == word {
			return true
		}
	}
	return false
}

// removeWork deletes an old build folder. debootstrap mounts /proc and friends inside the root;
// a killed build may leave them, so they are unmounted first, and the folder is kept (with an
// error) if anything is still mounted: removing through a mount would delete the host's files.
func removeWork(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	mounts := mountsUnder(dir)
	for _, m := range mounts {
		_ = syscall.Unmount(m, syscall.MNT_DETACH)
	}
	if left := mountsUnder(dir); len(left) > 0 {
		return fmt.Errorf("remove %s: still mounted: %s", dir, strings.Join(left, ", "))
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	return nil
}

// mountsUnder lists mount points below dir, deepest first.
func mountsUnder(dir string) []string {
	data, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && strings.HasPrefix(f[1], dir+"/") {
			out = append(out, f[1])
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out
}
