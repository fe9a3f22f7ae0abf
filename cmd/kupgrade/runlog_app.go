package main

import (
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/runner"
)

// startRunLog opens this run's log, once, and says where it is. A log that cannot be opened
// is a warning: it never stops an upgrade.
func (a *app) startRunLog() {
	if a.runLog != nil || a.runLogErr != nil {
		return
	}
	a.runLog, a.runLogErr = openRunLog(runLogDir(), time.Now(), keepRunLogs)
	if a.runLogErr != nil {
		a.log.Warn("no run log", "dir", runLogDir(), "error", a.runLogErr)
		return
	}
	a.sayRunLog()
}

// endRunLog closes the log and says again where it is, last, so that it is in view.
func (a *app) endRunLog() {
	if a.runLog == nil {
		return
	}
	a.runLog.f.Close()
	a.sayRunLog()
}

func (a *app) sayRunLog() {
	if a.json() {
		a.log.Info("run log", "path", a.runLog.path)
		return
	}
	fmt.Fprintf(a.stderr, "kupgrade: run log: %s\n", a.runLog.path)
}

// clusterLogged is the reporter of one cluster of a fleet run: its lines in the run log.
func (a *app) clusterLogged(cluster string) runner.Reporter {
	if a.runLog == nil {
		return nil
	}
	return clusterLog{a.runLog, cluster}
}

// logged is r with this run's log added (r alone when there is no log).
func (a *app) logged(r runner.Reporter) runner.Reporter {
	if a.runLog == nil {
		return r
	}
	if r == nil {
		return a.runLog
	}
	return tee{r, a.runLog}
}
