package runner

import "context"

// perItemConn says whether t picks its host per loop item: a delegate_to written as a template
// in a loop is rendered for each item, as Ansible does (setup delegated to each host of a list).
func (t *ctask) perItemConn() bool {
	return t.t.Loop != nil && hasTemplate(t.delegate)
}

// itemOnce runs one loop item. A task that picks its host per item renders delegate_to with the
// item, records the host (for delegate_facts) and runs on that host's connection. When the item's
// host cannot be reached, h.conn stays nil (or lost) and the loop ends there; runTask restores
// the host's own connection after the task is finished.
func (e *playExec) itemOnce(ctx context.Context, h *hostState, t *ctask) (map[string]any, error) {
	if !t.perItemConn() {
		return e.runOnce(ctx, h, t)
	}
	name := ""
	if target, err := e.delegateHost(h, t); err == nil {
		name = target.Name
	}
	t.itemHosts = append(t.itemHosts, name)
	done, bad := e.pickConn(ctx, h, t)
	if bad != nil {
		if !truth(bad["unreachable"]) {
			done()
		}
		return bad, nil
	}
	if done == nil {
		return e.runOnce(ctx, h, t)
	}
	untap := e.tapLines(h, t)
	r, cause := e.runOnce(ctx, h, t)
	untap()
	if h.conn.lost == nil {
		done()
	}
	return r, cause
}

// itemStops says whether a loop ends after an item: its connection was lost, or none could be
// had for it.
func itemStops(h *hostState, r map[string]any) bool {
	if h.conn == nil {
		return truth(r["unreachable"])
	}
	return h.conn.lost != nil
}
