package notify

// Episodes tells a new stuck episode from one already notified: a key (an operation judged
// stuck) is new when the previous pass did not judge it stuck, so a watcher that sees the same
// stuck operation at every poll notifies once, and again only after it was not stuck for a pass.
type Episodes struct {
	prev map[string]bool
}

// Pass takes the keys one pass judged stuck and returns those the pass before did not.
func (e *Episodes) Pass(keys []string) (fresh []string) {
	now := make(map[string]bool, len(keys))
	for _, k := range keys {
		if !e.prev[k] && !now[k] {
			fresh = append(fresh, k)
		}
		now[k] = true
	}
	e.prev = now
	return fresh
}
