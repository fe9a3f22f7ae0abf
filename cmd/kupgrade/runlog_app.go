package main

import (
	"fmt"
	"os"
	"time"

	"github.com/kupgrade/kupgrade/runner"
)

// startRunLog sets up this run's log, once: its file is made (in runLogFolder, beginning with
// runLogHeader), and its path said, at the first event. A log that cannot be made is a warning:
// it never stops an upgrade.
func (a *app) startRunLog() {
	if a.runLog != nil {
		return
	}
	a.runLog = &runLog{said: a.sayRunLog, open: func() (*os.File, error) {
		dir, byAge := a.runLogFolder()
		f, err := openRunLog(dir, time.Now(), byAge)
		if err == nil {
			_, err = f.WriteString(a.runLogHeader(time.Now()))
		}
		return f, err
	}}
}

// endRunLog ends the log with the run's outcome (runLogFooter: the finding and the retry of a
// failure), closes it and says again where it is, last, so that it is in view.
func (a *app) endRunLog(err error) {
	if a.runLog == nil {
		return
	}
	a.runLog.footer(a.runLogFooter(err))
	if path := a.runLog.close(); path != "" {
		a.sayRunLog(a.adoptRunLog(path), nil)
	}
}

func (a *app) sayRunLog(path string, err error) {
	switch {
	case err != nil:
		a.log.Warn("no run log", "dir", a.runLogRoot(), "error", err)
	case a.json():
		a.log.Info("run log", "path", path)
	default:
		a.aside(func() { fmt.Fprintf(a.stderr, "kupgrade: run log: %s\n", path) })
	}
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
