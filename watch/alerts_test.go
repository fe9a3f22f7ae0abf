package watch

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// alertsDir holds the shipped alert rules and their promtool tests.
var alertsDir = filepath.Join("..", "deploy", "prometheus")

// The shipped alert rules are valid, and each alert fires on the series of its promtool test.
func TestAlertRulesPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool is missing (Debian's prometheus package; `make deps` installs it)")
		}
		t.Skip("promtool is missing: install Debian's prometheus package (`make deps`) to check the alert rules")
	}
	for _, args := range [][]string{
		{"check", "rules", "kupgrade-alerts.yml"},
		{"test", "rules", "kupgrade-alerts_test.yml"},
	} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = alertsDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}

// Every kupgrade series the rules and their tests name is one the watcher exports: a renamed
// metric cannot leave an alert that never fires.
func TestAlertRulesUseExportedMetrics(t *testing.T) {
	exported := map[string]bool{}
	for _, n := range MetricNames() {
		exported[n] = true
	}
	used := regexp.MustCompile(`\bkupgrade_[a-z_]+\b`)
	for _, f := range []string{"kupgrade-alerts.yml", "kupgrade-alerts_test.yml"} {
		b, err := os.ReadFile(filepath.Join(alertsDir, f))
		if err != nil {
			t.Fatal(err)
		}
		names := used.FindAllString(string(b), -1)
		if len(names) == 0 {
			t.Errorf("%s names no kupgrade series", f)
		}
		for _, n := range names {
			if !exported[n] {
				t.Errorf("%s uses %s, which kupgrade watch does not export", f, n)
			}
		}
	}
}

// MetricNames reads every family the watcher registers, the per-scrape collectors' included,
// and nothing that is not one.
func TestMetricNamesAreTheExportedFamilies(t *testing.T) {
	names := MetricNames()
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] || !regexp.MustCompile(`^kupgrade_[a-z_]+$`).MatchString(n) {
			t.Errorf("MetricNames: %q is repeated or not a kupgrade metric name", n)
		}
		seen[n] = true
	}
	for _, want := range []string{"kupgrade_audit_passes_total", "kupgrade_upgrade_state", "kupgrade_fleet_progress_ratio", "kupgrade_build_info"} {
		if !seen[want] {
			t.Errorf("MetricNames lacks %s (of %v)", want, names)
		}
	}
	if len(names) != len(NewMetrics().collectors())+9+7 {
		t.Errorf("MetricNames has %d names, want one per collector of the pass (%d), state (9) and fleet (7) metrics", len(names), len(NewMetrics().collectors()))
	}
}
