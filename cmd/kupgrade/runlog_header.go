package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/internal/shellword"
	"github.com/kupgrade/kupgrade/upgrade"
)

// runLogHeader is what a run log begins with: the command (no password, no webhook token), the
// cluster and its upgrade, the database, the user, kupgrade's version and the time.
func (a *app) runLogHeader(now time.Time) string {
	rows := [][2]string{
		{"command", a.redact(redactArgs(strings.Join(headerArgs(os.Args), " "), os.Args))},
		{"cluster", a.logCluster()},
		{"database", a.logDatabase()},
		{"user", logUser()},
		{"version", fmt.Sprintf("kupgrade %s (commit %s)", version, commit)},
		{"started", now.UTC().Format(time.RFC3339)},
	}
	if a.g.NotifyURL != "" {
		rows = append(rows, [2]string{"notify", hostOnly(a.g.NotifyURL)})
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "# %-9s %s\n", r[0]+":", r[1])
	}
	return b.String()
}

// runLogFooter is what a run log ends with: the outcome, and for a failure its finding and the
// command that retries it.
func (a *app) runLogFooter(err error) string {
	if err == nil {
		return "# outcome: ok\n"
	}
	s := "# outcome: failed: " + a.redact(err.Error()) + "\n"
	var se *upgrade.StepError
	if !errors.As(err, &se) {
		return s
	}
	if f := findingOf(err); f != "" {
		s += "# finding: " + f + "\n"
	}
	if se.Retry != "" {
		s += "# retry:   " + a.command(se.Retry) + "\n"
	}
	return s
}

// logCluster names the run's cluster and its upgrade, as the log's header says them.
func (a *app) logCluster() string {
	switch {
	case strings.HasPrefix(a.cmdName, "play"):
		return "- (play)"
	case strings.HasPrefix(a.cmdName, "fleet"):
		return "- (fleet run: each line names its cluster)"
	case strings.HasPrefix(a.cmdName, "watch"):
		return "- (watch: every cluster of the database)"
	}
	if uuid := a.upgradeUUID(); uuid != "" {
		return a.cluster() + " (upgrade " + uuid + ")"
	}
	return a.cluster() + " (no upgrade yet)"
}

func (a *app) logDatabase() string {
	if strings.HasPrefix(a.cmdName, "play") {
		return "- (play)"
	}
	d, err := a.dsn()
	if err != nil {
		return "unreadable: " + a.redact(err.Error())
	}
	return d.Redacted()
}

func logUser() string {
	u, err := user.Current()
	if err != nil {
		return fmt.Sprintf("uid %d", os.Getuid())
	}
	return fmt.Sprintf("%s (uid %s)", u.Username, u.Uid)
}

// headerArgs are args quoted for a shell, a webhook's URL (--notify-url) cut to its scheme and
// host: Slack, Discord and Teams keep the secret in the path.
func headerArgs(args []string) []string {
	out := make([]string, len(args))
	for i, arg := range args {
		switch {
		case i > 0 && args[i-1] == "--notify-url":
			arg = hostOnly(arg)
		case strings.HasPrefix(arg, "--notify-url="):
			arg = "--notify-url=" + hostOnly(strings.TrimPrefix(arg, "--notify-url="))
		}
		out[i] = shellword.Quote(arg)
	}
	return out
}

// hostOnly is a URL's scheme and host, nothing of its path, query or user.
func hostOnly(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(a URL that does not parse)"
	}
	return u.Scheme + "://" + u.Host
}
