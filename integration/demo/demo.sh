#!/usr/bin/env bash
# The seed story of kupgrade, end to end in a lab (two controllers, one worker):
# kubeadm fails late on controller-1 after rewriting /var/lib/kubelet/config.yaml, kupgrade records
# it as upgrading-second-master-failed with the host status cleared, a retry is killed with SIGKILL,
# `recover` fails the orphaned operation once its lease expires, and the retries finish the upgrade.
#
# Every kupgrade command is printed before it runs, with its real output. Exits 0 only when the
# story reaches upgrade-complete. Environment: DB=sqlite|mysql, KEEP_LAB=1 keeps the lab, BIN=dir
# of kupgrade and kupgrade-lab, DEMO_DIR=folder for the lab's files.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$ROOT/bin}
DB=${DB:-sqlite}
DIR=${DEMO_DIR:-$ROOT/lab-demo}
KEEP_LAB=${KEEP_LAB:-0}
TO=v1.30.1
export PATH="$BIN:$PATH"
export KUPGRADE_INVENTORY="$DIR/inventory.yml"
# A short lease so that the demo does not wait 30 s for the killed kupgrade's lease to expire.
export KUPGRADE_LEASE_TTL=5s

bold() { if [ -t 1 ]; then printf '\033[1m%s\033[0m\n' "$*"; else printf '%s\n' "$*"; fi; }
say() { printf '\n'; bold "## $*"; }

# run WANT CMD...: print the command, run it, and stop the demo if its exit status is not WANT.
run() {
	local want=$1
	shift
	printf '\n'
	bold "\$ $*"
	# In the background and waited for, so that a SIGTERM reaches the trap at once (bash runs
	# traps only between foreground commands) and the cleanup can stop the command.
	"$@" &
	CHILD=$!
	wait "$CHILD"
	local rc=$?
	CHILD=""
	if [ "$rc" != "$want" ]; then
		echo "demo: \`$*\` exited $rc, expected $want" >&2
		exit 1
	fi
}

cleanup() {
	local rc=$?
	if [ -n "${UPGRADE_PID:-}" ]; then kill -9 "$UPGRADE_PID" 2>/dev/null; fi
	if [ -n "${CHILD:-}" ]; then pkill -TERM -P "$CHILD" 2>/dev/null; kill -TERM "$CHILD" 2>/dev/null; wait "$CHILD" 2>/dev/null; fi
	if [ "$KEEP_LAB" = 1 ]; then
		echo "KEEP_LAB=1: the lab stays; remove it with: kupgrade-lab down --dir $DIR"
	else
		kupgrade-lab --dir "$DIR" down >/dev/null 2>&1
		[ "$DB" = mysql ] && kupgrade-lab --dir "$DIR" mariadb down >/dev/null 2>&1
		rm -rf "$DIR"
	fi
	exit $rc
}

if [ -e "$DIR/lab.json" ]; then
	kupgrade-lab --dir "$DIR" down >/dev/null 2>&1
	kupgrade-lab --dir "$DIR" mariadb down >/dev/null 2>&1
fi
rm -rf "$DIR"
trap cleanup EXIT
trap 'exit 130' INT TERM

say "Start a lab: 2 controllers and 1 worker at v1.29.4 (real sshd, simulated kubeadm)"
kupgrade-lab --dir "$DIR" up --controllers 2 --workers 1 2>&1 | grep -E '^lab: ' || exit 1
case "$DB" in
mysql)
	kupgrade-lab --dir "$DIR" mariadb up >/dev/null 2>"$DIR/mariadb.log" || { cat "$DIR/mariadb.log"; exit 1; }
	echo "state store: MariaDB in the lab (the DSN is read from $DIR/mariadb.dsn)"
	DBFLAG=(--db-file "$DIR/mariadb.dsn")
	;;
*)
	export KUPGRADE_DB="sqlite:$DIR/kupgrade.db"
	echo "state store: embedded SQLite, $DIR/kupgrade.db"
	DBFLAG=()
	;;
esac
kup() { kupgrade "${DBFLAG[@]}" "$@"; }

say "Create the upgrade: kupgrade reads the versions over SSH"
run 0 kup upgrade start $TO
run 0 kup host list

say "The steps before the control plane"
run 0 kup upgrade download-images
run 0 kup upgrade networking

say "The first controller: kubeadm upgrade apply"
run 0 kup host upgrade controller-0 control-plane

say "The failure kupgrade exists for: kubeadm fails on controller-1 AFTER rewriting /var/lib/kubelet/config.yaml"
run 0 kupgrade-lab --dir "$DIR" fault controller-1 --after kubelet-config --exit 1 --once
run 1 kup host upgrade controller-1 control-plane

say "Not stranded: the state is the failed twin and the host status is cleared, so a retry is accepted"
run 0 kup upgrade show
run 0 kup host list
run 0 kupgrade-lab --dir "$DIR" exec controller-1 -- ls /etc/kubernetes/tmp

say "A retry, and kupgrade is killed (SIGKILL) while kubeadm runs on controller-1"
run 0 kupgrade-lab --dir "$DIR" fault controller-1 --after control-plane --hang --once
bold "\$ kup host upgrade controller-1 control-plane &   # then kill -9 it"
kupgrade "${DBFLAG[@]}" host upgrade controller-1 control-plane >"$DIR/killed.log" 2>&1 &
UPGRADE_PID=$!
# The one-shot fault file disappears when it fires: kubeadm is then hanging after its
# control-plane phase (a process list would also match the command line kupgrade sent).
fired=0
for _ in $(seq 1 240); do
	if ! kupgrade-lab --dir "$DIR" exec controller-1 -- test -e /etc/kupgrade-lab/fault >/dev/null 2>&1; then
		fired=1
		break
	fi
	sleep 0.5
done
if [ "$fired" != 1 ]; then
	echo "demo: kubeadm never reached its control-plane phase on controller-1:" >&2
	cat "$DIR/killed.log" >&2
	exit 1
fi
kill -9 "$UPGRADE_PID"
wait "$UPGRADE_PID" 2>/dev/null
echo "killed kupgrade (pid $UPGRADE_PID) in the middle of kubeadm upgrade node"
UPGRADE_PID=
run 0 kup upgrade show

say "recover refuses while the dead process's lease is live (slow is not stuck), then fails it"
run 4 kup recover
sleep 6
run 0 kup recover

say "The retry succeeds"
kupgrade-lab --dir "$DIR" fault controller-1 --clear >/dev/null
run 0 kup host upgrade controller-1 control-plane

say "The kubelets, controllers first, then upgrade complete"
run 0 kup upgrade run
run 0 kup upgrade show
run 0 kup host list

state=$(kup upgrade show -o json | sed -n 's/.*"state": "\(.*\)".*/\1/p')
if [ "$state" != upgrade-complete ]; then
	echo "demo: the upgrade ended in $state, not upgrade-complete" >&2
	exit 1
fi
say "Done: upgrade-complete, every manifest and kubelet at $TO"
