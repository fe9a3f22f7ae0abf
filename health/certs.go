package health

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// opensslTime is how `openssl x509 -enddate` prints notAfter.
const opensslTime = "Jan _2 15:04:05 2006 MST"

// certExpiry is one certificate's end, read from HostScript's certs section.
type certExpiry struct {
	file     string
	notAfter time.Time
}

// parseCerts reads "FILE notAfter=DATE" lines; a line that says anything else is an error
// naming the file and what openssl said.
func parseCerts(body string) ([]certExpiry, []string) {
	var certs []certExpiry
	var unreadable []string
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		file, rest, _ := strings.Cut(line, " ")
		date, ok := strings.CutPrefix(strings.TrimSpace(rest), "notAfter=")
		t, err := time.Parse(opensslTime, date)
		if !ok || err != nil {
			unreadable = append(unreadable, fmt.Sprintf("%s (%s)", file, strings.TrimSpace(rest)))
			continue
		}
		certs = append(certs, certExpiry{file, t.UTC()})
	}
	return certs, unreadable
}

// certificates fails naming every certificate, on every controller, with fewer than minDays
// days left (or already expired), and any certificate openssl could not read; where openssl is
// missing or no certificate is found, the check cannot run, and fails saying so.
func certificates(hosts map[string]section, now time.Time, minDays int) Result {
	var bad []string
	n := 0
	var soonest time.Duration = math.MaxInt64
	for _, host := range sortedKeys(hosts) {
		s := hosts[host]
		if s.rc == notFound {
			return cannotRun(CheckCerts, namingHost(host, firstLine(s.body)))
		}
		if s.rc != 0 {
			bad = append(bad, fmt.Sprintf("%s (certificates not read: %s)", host, firstLine(s.body)))
			continue
		}
		certs, unreadable := parseCerts(s.body)
		for _, u := range unreadable {
			bad = append(bad, host+":"+u)
		}
		for _, c := range certs {
			n++
			left := c.notAfter.Sub(now)
			soonest = min(soonest, left)
			if left < time.Duration(minDays)*24*time.Hour {
				bad = append(bad, fmt.Sprintf("%s:%s (%s)", host, c.file, daysLeft(left)))
			}
		}
	}
	if n == 0 && len(bad) == 0 {
		return cannotRun(CheckCerts, "no certificate found under /etc/kubernetes/pki nor in kubeadm's kubeconfig files on "+strings.Join(sortedKeys(hosts), ", "))
	}
	ok := fmt.Sprintf("%d certificates on %d controllers, the soonest ends in %s", n, len(hosts), daysLeft(soonest))
	return verdict(CheckCerts, bad, false,
		fmt.Sprintf("certificates with fewer than %d days left (kubeadm certs renew, or --cert-min-days)", minDays), ok)
}

func daysLeft(d time.Duration) string {
	switch {
	case d == math.MaxInt64:
		return "never (none found)"
	case d < 0:
		return fmt.Sprintf("expired %d days ago", int(-d.Hours()/24))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
