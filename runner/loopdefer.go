package runner

import (
	"errors"

	"github.com/kupgrade/kupgrade/jinja"
)

// renderLoop renders a task's loop. A with_first_found term that names an undefined variable
// is left out rather than failing, as ansible-core 2.14's task executor renders that loop
// (a mapping term holding one is left out whole, its skip with it).
func renderLoop(t *ctask, vars map[string]any) (any, error) {
	terms, ok := t.t.Loop.([]any)
	if t.t.LoopWith != "first_found" || !ok {
		return render(t.t.Loop, vars)
	}
	out := make([]any, 0, len(terms))
	for _, term := range terms {
		v, err := render(term, vars)
		var undef *jinja.UndefinedError
		if errors.As(err, &undef) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// loopFailure is the result of a loop that could not be rendered. An undefined variable in it
// counts only once the task's when holds, as Ansible's task executor keeps that error until
// then: a task its when skips (inside a block for another setup) is skipped, not failed.
func (e *playExec) loopFailure(h *hostState, t *ctask, err error) map[string]any {
	var undef *jinja.UndefinedError
	if errors.As(err, &undef) {
		if ok, werr := e.whenTrue(h, t); werr == nil && !ok {
			return map[string]any{"changed": false, "skipped": true, "skip_reason": "Conditional result was False"}
		}
	}
	return tmplFailure(t, "loop", err)
}
