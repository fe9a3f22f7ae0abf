package runner

import (
	"fmt"
	"path/filepath"
	"strings"
)

// MaxIncludeDepth bounds how deep include_tasks and include_role nest as a play runs. A file
// that includes itself through a templated name (which the loader cannot follow) would
// otherwise recurse until the process dies of a stack overflow.
const MaxIncludeDepth = 64

// includeTooDeep is the failure of include t when the includes running already reach
// MaxIncludeDepth: it names the chain of includes, file:line of each.
func (e *playExec) includeTooDeep(t *ctask) error {
	if len(e.includes) < MaxIncludeDepth {
		return nil
	}
	chain := append(append([]string(nil), e.includes...), e.taskAt(t))
	return fmt.Errorf("includes nest more than %d deep (does a file include itself without end?): %s",
		MaxIncludeDepth, cycleChain(chain))
}

// cycleChain writes a chain of includes up to the first link that repeats an earlier one: the
// rest only goes round the same cycle again.
func cycleChain(chain []string) string {
	seen := map[string]bool{}
	for i, at := range chain {
		if seen[at] {
			return strings.Join(chain[:i+1], " -> ") + fmt.Sprintf(" -> ... (%d links in all)", len(chain))
		}
		seen[at] = true
	}
	return strings.Join(chain, " -> ")
}

// taskAt is a task's file:line, the file relative to the playbook's folder when it is inside.
func (e *playExec) taskAt(t *ctask) string {
	file := t.t.File
	if rel, err := filepath.Rel(e.dir, file); err == nil && !strings.HasPrefix(rel, "..") {
		file = rel
	}
	return fmt.Sprintf("%s:%d", file, t.t.Line)
}
