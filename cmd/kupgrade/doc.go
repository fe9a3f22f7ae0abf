// Command kupgrade upgrades kubeadm-based Kubernetes clusters over SSH, one recorded step at a
// time, and never strands an upgrade: every step's state is in a database (SQLite or MySQL)
// that any kupgrade, on any machine, can read, resume or fail.
//
// Usage:
//
//	kupgrade [global flags] COMMAND [flags]
//
// # Commands
//
//	upgrade start VERSION [--from-version V] [--ignore-version-checks]
//	                          check the hosts, create the upgrade and one row per host
//	upgrade show              the upgrade: versions, state, times, lease holder
//	upgrade versions          where the hosts are and can go (kubeadm installed, kubeadm's rule)
//	upgrade download-images   pull the new control-plane images on the controllers
//	upgrade pre-app-update, upgrade post-app-update
//	                          run the user's hook playbook of that step
//	upgrade networking, upgrade storage
//	                          run that step's playbook
//	upgrade next-hop          an upgrade across several minors: on to the next hop
//	upgrade complete | abort | delete
//	                          finish, roll back (kubeadm's manifest backups), or forget
//	upgrade failed [--force] [--reason TEXT]
//	                          fail the in-flight operation by hand
//	upgrade run [--until STATE] [--retries N] [--worker-batch N] [--dry-run [--recorded]]
//	                          walk every remaining step, resuming from the current state
//	upgrade plan [VERSION] [--from-version V] [--recorded] [--ignore-version-checks] [--until STATE]
//	                          writing nothing: the versions, every remaining step with its
//	                          hosts, playbook, commands and pre-check verdicts, the refusal
//	                          that would stop it (exit 3), and the next command
//	upgrade list              every cluster: state, age in it, lease holder, STUCK / FAILED
//	upgrade history [--since 2h|RFC3339] [--limit N] [--all-clusters]
//	                          the events, oldest first: time, actor, from -> to, host, reason
//	host list [--refresh]     the hosts, their versions, status and last failure
//	host upgrade HOST control-plane|kubelet [-f|--rerun]
//	                          upgrade one host's control plane or kubelet
//	host cordon HOST, host uncordon HOST
//	                          one-controller systems
//	recover [--dry-run] [--force] [--no-probe]
//	                          fail an operation nobody runs any more, so it can be retried
//	watch [--interval 1m] [--stale-after 1h] [--once] [--listen ADDR] [--metrics-listen ADDR]
//	    [--token-file FILE] [--tls-cert FILE --tls-key FILE]
//	                          the audit loop; --listen serves /healthz, /metrics, a status page
//	                          that refreshes itself, and its data at /status.json (a bare port
//	                          binds 127.0.0.1); --metrics-listen serves /metrics apart;
//	                          --token-file requires a bearer token, --tls-cert serves HTTPS
//	fleet run --to VERSION (-i INVENTORY)... | --inventories DIR [--max-parallel N] [--canary N]
//	    [--max-failures K] [--until STATE] [--retries N] [--fleet NAME]
//	                          upgrade many clusters, one inventory each; several runners on
//	                          several machines share the work through the database
//	fleet show [--fleet NAME] the fleet's clusters per state, failing and stuck ones, progress,
//	                          an estimate of the time left
//	play PLAYBOOK [-l PATTERN] [-f N] [-C] [-t TAGS] [--skip-tags TAGS] [-e KEY=VALUE]
//	                          run any playbook against the inventory
//	inventory list [-l PATTERN]
//	                          the resolved hosts, groups and variables
//	version, --version        version, commit, Go version
//	completion bash|zsh|fish  the shell hook; kupgrade answers completions from its grammar
//	man                       kupgrade(1) as roff, generated from the grammar
//
// Each command also answers to its StarlingX name (`system kube-*`), as a hidden alias: for
// example kube-upgrade-show, kube-host-upgrade-list, kube-version-list; `kupgrade --help` ends
// with the list. HOST is a name of the inventory or the host's id in `host list`. Global flags
// may come before or after the command. Where kupgrade's flag means what the `system` flag
// means, StarlingX's spelling works (host upgrade -f); where it would not (upgrade start
// --force ignores alarms in StarlingX; kupgrade reads none), it is refused with a hint naming
// kupgrade's own flag.
//
// # Global flags
//
//	--db DSN                  state store: sqlite:PATH (default /var/lib/kupgrade/kupgrade.db as
//	                          root, else $XDG_STATE_HOME/kupgrade/kupgrade.db, that is
//	                          ~/.local/state/kupgrade/kupgrade.db; only upgrade start and fleet
//	                          run create it), or
//	                          mysql://user:pass@host:port/db?params, or user:pass@tcp(host:port)/db;
//	                          several servers of one Galera cluster: mysql://u:p@db1,db2,db3/db
//	                          (a new connection goes to the first that answers)
//	--db-file FILE            read the DSN from FILE (keeps the password off the command line)
//	-i, --inventory FILE      Ansible YAML inventory (default inventory.yml)
//	--cluster NAME            cluster (default: kupgrade_cluster of the inventory, else default);
//	                          one that disagrees with the inventory's kupgrade_cluster is bad input
//	--known-hosts FILE        host keys to verify against (default ~/.ssh/known_hosts, or ssh_config's)
//	--accept-new-host-keys    record keys of unknown hosts; a changed key is still refused
//	-o, --output table|json   json: one document, or JSON Lines for streams, on stdout; the
//	                          final error is then one JSON line on stderr:
//	                          {"time","event":"error","message","exit_status"}
//	--log-level LEVEL         debug, info, warn or error (diagnostics on stderr)
//	--log-format text|json    json logs write durations as Go durations ("1m30s")
//	--lease-ttl 30s           an operation's lease; a dead kupgrade is noticed after about this
//	--kubeadm-timeout 15m     time one kubeadm command may take before its step fails
//	--fence-wait 2m           time a step's command waits on a host for another kupgrade's
//	                          command (the host's fence) to end before its step fails
//
// The DSN is parsed once. No message, log line or event ever shows its password, whichever
// form or source it came in, even when it does not parse. MySQL connections time out (10 s
// dial, 60 s read, 30 s write) unless the DSN's timeout, readTimeout or writeTimeout say
// otherwise.
//
// Versions are taken as v1.30.1 or 1.30.1 and stored as v1.30.1; a pre-release target
// (v1.31.0-rc.1) is parsed and refused with the reason. Every command kupgrade prints for the
// operator to type (next:, retry with:, a refusal's way out) keeps the --db, --db-file, -i and
// --cluster typed on the command line (values from the environment are left to it).
//
// Commands that only read (upgrade show, upgrade list, upgrade history, upgrade plan, host list
// without --refresh, recover --dry-run) create no database: where there is none, they say which
// file they looked for and exit 2 (upgrade plan VERSION, before the first upgrade, needs none).
// An inventory named by -i or KUPGRADE_INVENTORY that cannot be read is bad input for every
// command but watch and fleet run, which do without one: for them only a typed -i counts (watch
// warns that it probes no host). They open the store read-only: on SQLite they answer while another process, such as an operator's
// sqlite3 shell, holds the database's write lock. Commands that write wait for that lock for
// up to 30 s, then exit 4 saying which file is locked.
//
// # Exit status
//
//	0    done (also: nothing to do; --help)
//	1    the operation ran and failed; the state now says *-failed
//	2    bad input: flags, inventory, playbook, DSN; the message names the file, line, column
//	3    refused by a pre-check or an invalid transition, or no such upgrade; nothing changed
//	4    conflict: another operation holds the lease, the state changed underneath, or the
//	     database's write lock stayed held; nothing changed
//	5    unreachable: SSH connection, authentication or host-key verification failed
//	6    the operation ran but its outcome could not be recorded (the database stayed
//	     unreachable, or another process had already failed or taken over the operation);
//	     the state may still say in flight until watch or recover fails it
//	130  interrupted; the in-flight operation was recorded as failed before exiting
//
// # Environment
//
//	KUPGRADE_DB               --db
//	KUPGRADE_INVENTORY        --inventory
//	KUPGRADE_CLUSTER          --cluster
//	KUPGRADE_KNOWN_HOSTS      --known-hosts
//	KUPGRADE_LEASE_TTL        --lease-ttl
//	KUPGRADE_FENCE_WAIT       --fence-wait
//	KUPGRADE_SNAPSHOT_DIR     --snapshot-dir
//	KUPGRADE_SSH_PASSPHRASE   passphrase of an encrypted private key (else asked on a terminal)
//	SSH_AUTH_SOCK             ssh-agent to take keys from
//
// The design is in docs/cli.md and docs/states.md; Main is the whole program, and tests call it in
// process.
package main
