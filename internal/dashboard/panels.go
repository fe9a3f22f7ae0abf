package dashboard

// rows are the dashboard's panels: what an on-call looks at first (clusters needing someone)
// on top, the fleets next, the watcher's own health last. Every metric family kupgrade watch
// exports has a panel (dashboard_test.go checks it).
func rows() []row {
	return []row{
		{"Upgrades", []panel{
			{title: "Clusters in flight", stat: true, help: "Clusters with an operation in flight now.",
				queries: []query{{expr: `sum(kupgrade_upgrade_in_flight)`}}},
			{title: "Upgrades in a failed state", stat: true, help: "Clusters whose upgrade sits in a failed state: kupgrade upgrade show says what to do.",
				queries: []query{{expr: `count(kupgrade_upgrade_state{state=~".*-failed"} == 1) or vector(0)`}}},
			{title: "Database readable", stat: true, help: "1 when the last scrape could read the upgrades from the database.",
				queries: []query{{expr: `min(kupgrade_state_read_ok)`}}},
			{title: "Hosts in flight", stat: true, help: "Hosts being upgraded, drained, or uncordoned now.",
				queries: []query{{expr: `sum(kupgrade_hosts_in_flight) or vector(0)`}}},
			{title: "Hosts left failed", stat: true, help: "Hosts whose step failed while their cluster's upgrade goes on (a worker's kubelet a minor behind): kupgrade upgrade show names the retry.",
				queries: []query{{expr: `sum(kupgrade_hosts_failed) or vector(0)`}}},
			{title: "Time in the current state", unit: "s", help: "Seconds each cluster's upgrade has been in its state: a long in-flight state is a stuck one.",
				queries: []query{{expr: `time() - kupgrade_upgrade_state_entered_timestamp_seconds`, legend: "{{cluster}}"}}},
			{title: "State", help: "The state each cluster's upgrade is in.",
				queries: []query{{expr: `kupgrade_upgrade_state == 1`, legend: "{{cluster}} {{state}}"}}},
			{title: "Hops", help: "The hop each upgrade runs, and how many follow it.",
				queries: []query{{expr: `kupgrade_upgrade_hop`, legend: "{{cluster}} hop"}, {expr: `kupgrade_upgrade_hops_left`, legend: "{{cluster}} left"}}},
			{title: "Hosts in flight by status", help: "Hosts in each in-flight status, per cluster.",
				queries: []query{{expr: `sum by (cluster, status) (kupgrade_hosts_in_flight)`, legend: "{{cluster}} {{status}}"}}},
			{title: "Lease time left", unit: "s", help: "Seconds until the lease on each operation in flight expires; below 0 its holder is gone.",
				queries: []query{{expr: `kupgrade_upgrade_lease_expiry_timestamp_seconds - time()`, legend: "{{cluster}} {{owner}}"}}},
			{title: "Operation and lease age", unit: "s", help: "Seconds since each in-flight operation began, and since its lease was renewed (the audit's view).",
				queries: []query{{expr: `kupgrade_inflight_operation_age_seconds`, legend: "{{cluster}} {{state}}"}, {expr: `kupgrade_lease_age_seconds`, legend: "{{cluster}} lease {{owner}}"}}},
		}},
		{"Fleets", []panel{
			{title: "Fleet progress", unit: "percentunit", help: "Share of each fleet's clusters done.",
				queries: []query{{expr: `kupgrade_fleet_progress_ratio`, legend: "{{fleet}}"}}},
			{title: "Estimated time left", unit: "s", help: "Time each fleet needs to finish at the rate since its first claim.",
				queries: []query{{expr: `kupgrade_fleet_estimated_seconds_left`, legend: "{{fleet}}"}}},
			{title: "Clusters per state", help: "Clusters of each fleet per upgrade state.",
				queries: []query{{expr: `kupgrade_fleet_clusters`, legend: "{{fleet}} {{state}}"}}},
			{title: "Outcomes, claims, stuck and failing", help: "Clusters of each fleet per outcome of fleet run, claimed by a live runner, stuck, failing.",
				queries: []query{{expr: `kupgrade_fleet_outcome_clusters`, legend: "{{fleet}} {{outcome}}"}, {expr: `kupgrade_fleet_claimed_clusters`, legend: "{{fleet}} claimed"},
					{expr: `kupgrade_fleet_stuck_clusters`, legend: "{{fleet}} stuck"}, {expr: `kupgrade_fleet_failing_clusters`, legend: "{{fleet}} failing"}}},
		}},
		{"Watcher", []panel{
			{title: "Since the last audit pass", unit: "s", stat: true, help: "Seconds since the watcher holding the audit lock ended a pass.",
				queries: []query{{expr: `time() - max(kupgrade_audit_last_pass_timestamp_seconds)`}}},
			{title: "Audit lock held", stat: true, help: "Watchers holding the single-auditor lock: 1 is right, 0 means nobody audits.",
				queries: []query{{expr: `sum(kupgrade_audit_lock_held)`}}},
			{title: "In-flight operations audited", stat: true, help: "In-flight operations the last pass left, every cluster.",
				queries: []query{{expr: `max(kupgrade_inflight_operations)`}}},
			{title: "Unreadable columns", stat: true, help: "Columns the last pass could not read (a hand edit gone wrong): the audit leaves such a cluster alone.",
				queries: []query{{expr: `sum(kupgrade_audit_unreadable_columns) or vector(0)`}}},
			{title: "Audit passes and errors", unit: "ops", help: "Passes per second, passes that met an error, operations the audit failed, moved on or could not fail.",
				queries: []query{{expr: `rate(kupgrade_audit_passes_total[5m])`, legend: "passes"}, {expr: `rate(kupgrade_audit_pass_errors_total[5m])`, legend: "pass errors"},
					{expr: `sum by (state) (rate(kupgrade_audit_failed_operations_total[5m]))`, legend: "failed from {{state}}"},
					{expr: `rate(kupgrade_audit_moved_on_total[5m])`, legend: "moved on"}, {expr: `sum by (cluster) (rate(kupgrade_audit_errors_total[5m]))`, legend: "could not fail {{cluster}}"}}},
			{title: "Audit pass duration", unit: "s", help: "90th percentile of the time one audit pass takes.",
				queries: []query{{expr: `histogram_quantile(0.9, sum by (le) (rate(kupgrade_audit_pass_duration_seconds_bucket[5m])))`, legend: "p90"}}},
			{title: "Versions running", help: "The kupgrade version and commit of each watcher.",
				queries: []query{{expr: `kupgrade_build_info`, legend: "{{instance}} {{version}} {{commit}}"}}},
		}},
	}
}
