package main

import (
	"context"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/notify"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/upgrade"
)

// stuckNotifier posts a `stuck` event for each operation the watch audit judges stuck (lease
// expired, or stale with no lease), once per episode however many polls see it.
type stuckNotifier struct {
	a        *app
	store    upgrade.Store
	episodes notify.Episodes
}

// onPass is the Watcher's OnPass.
func (s *stuckNotifier) onPass(rep recovery.AuditReport) {
	byKey := map[string]recovery.Action{}
	var keys []string
	for _, act := range rep.Actions {
		if act.Why != recovery.WhyLeaseExpired && act.Why != recovery.WhyStale {
			continue
		}
		k := act.Cluster + "\x00" + act.Host + "\x00" + string(act.FromState)
		byKey[k] = act
		keys = append(keys, k)
	}
	for _, k := range s.episodes.Pass(keys) {
		s.send(byKey[k])
	}
}

func (s *stuckNotifier) send(act recovery.Action) {
	e := notify.Event{Kind: notify.Stuck, Time: act.Time, Cluster: act.Cluster, State: string(act.FromState),
		Host: act.Host, Finding: act.Why, Message: s.a.redact(act.Msg)}
	if act.Error != "" {
		e.Message += ": " + s.a.redact(act.Error)
	}
	if p := act.Probe; p != nil && p.Finding != nil {
		e.Finding = fmt.Sprintf("%s: %s (%s)", act.Why, p.Finding.Summary, p.Finding.Class)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.a.notifyNext(ctx, &upgrade.Workflow{Store: s.store, Cluster: act.Cluster}, &e)
	s.a.notifier.Send(e)
}
