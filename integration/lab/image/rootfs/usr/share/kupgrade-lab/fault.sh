# fault.sh: fault injection for the simulated kubeadm (sourced after lib.sh).
#
# /etc/kupgrade-lab/fault holds key=value lines:
#   after=PHASE | in=PHASE   fire when PHASE ends (after) or before it does anything (in)
#   action=exit|hang|drop|delay|stale
#                            exit with a status; hang until signalled or the SSH session is
#                            gone; drop the SSH connection (kill this session's sshd) and stop;
#                            delay: wait seconds=N (as hang does), then go on as if nothing;
#                            stale (phase kubelet-status only): the kubelet's restart leaves its
#                            node status at the version it reported before
#   status=N                 exit status for action=exit (default 1)
#   seconds=N                how long action=delay waits (default 10)
#   once=true|false          true: the file is removed when the fault fires, so a retry succeeds
#   check=NAME               the preflight check an exit in preflight fails (default LabFault)
# Phases: config (the read of the kubeadm-config ConfigMap), preflight, control-plane, kubelet-config, addon, post-upgrade (kubeadm); apt-download,
# dpkg-unpack (apt-get install of kubeadm, kubelet or kubectl); dnf-download (dnf install of
# them, before anything changes); evict (kubectl drain);
# kubelet-status (the kubelet's restart posting its node status); etcd-snapshot (etcdctl snapshot
# save: "in" once FILE.part is created, "after" once it is written, before its rename to FILE).

# fault_stale_status: whether a stale fault keeps this node's status from being posted (it fires
# at every restart until the fault is cleared, or once).
fault_stale_status() {
    [ -f "$FAULT_FILE" ] && grep -q '=kubelet-status$' "$FAULT_FILE" && grep -qx 'action=stale' "$FAULT_FILE" || return 1
    grep -qx 'once=true' "$FAULT_FILE" && rm -f "$FAULT_FILE"
    return 0
}

# fault_point WHEN PHASE: called by kubeadm at the start ("in") and end ("after") of each phase.
fault_point() {
    local when=$1 phase=$2 key value f_when="" f_phase="" action=exit status=1 once=false seconds=10 check=LabFault
    [ -f "$FAULT_FILE" ] || return 0
    while IFS='=' read -r key value; do
        case $key in
        after | in) f_when=$key f_phase=$value ;;
        action) action=$value ;;
        status) status=$value ;;
        once) once=$value ;;
        seconds) seconds=$value ;;
        check) check=$value ;;
        esac
    done < "$FAULT_FILE"
    [ "$f_when" = "$when" ] && [ "$f_phase" = "$phase" ] || return 0
    [ "$once" = true ] && rm -f "$FAULT_FILE"
    lab_log "fault fired: $when=$phase action=$action status=$status once=$once pid=$$"
    case $action in
    exit) fault_exit "$phase" "$status" "$check" ;;
    hang) fault_hang ;;
    delay) fault_hang "$seconds" ;;
    drop) fault_drop ;;
    *) echo "kupgrade-lab: unknown fault action \"$action\" in $FAULT_FILE" >&2; exit 1 ;;
    esac
}

fault_exit() {
    case $1 in
    apt-download)
        echo "E: Failed to fetch file:$PKGS/kubeadm.deb  failure injected by kupgrade-lab" >&2
        echo "E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?" >&2
        exit "$2" ;;
    dpkg-unpack)
        echo "dpkg: error processing archive (--unpack): failure injected by kupgrade-lab" >&2
        echo "E: Sub-process /usr/bin/dpkg returned an error code (1)" >&2
        exit "$2" ;;
    dnf-download)
        echo "Error: Error downloading packages:" >&2
        echo "  Cannot download Packages/kubeadm.rpm: failure injected by kupgrade-lab, all mirrors were tried" >&2
        exit "$2" ;;
    evict)
        echo "error: unable to drain node: failure injected by kupgrade-lab" >&2
        exit "$2" ;;
    etcd-snapshot)
        rm -f "${SNAPSHOT_PART:-}"
        echo "Error: rpc error: code = Unavailable desc = error reading from server: EOF (failure injected by kupgrade-lab)" >&2
        exit "$2" ;;
    config)
        printf 'unable to fetch the kubeadm-config ConfigMap: failed to get config map: configmaps "kubeadm-config" is forbidden: User "system:node:%s" cannot get resource "configmaps" in API group "" in the namespace "kube-system": failure injected by kupgrade-lab\n' "$NODE_NAME" >&2
        echo "To see the stack trace of this error execute with --v=5 or higher" >&2
        exit "$2" ;;
    esac
    if [ "$1" = preflight ]; then
        echo "[preflight] Some fatal errors occurred:" >&2
        printf '\t[ERROR %s]: failure injected by kupgrade-lab\n' "$3" >&2
        echo "[preflight] If you know what you are doing, you can make a check non-fatal with \`--ignore-preflight-errors=...\`" >&2
    fi
    echo "error execution phase $1: failure injected by kupgrade-lab (exit status $2)" >&2
    echo "To see the stack trace of this error execute with --v=5 or higher" >&2
    exit "$2"
}

# fault_hang [SECONDS] sleeps in the background and waits, so a signal is handled at once (a
# foreground sleep would delay it), and gives up as soon as the SSH session that started it is
# gone, unless it runs in a session of its own (KUPGRADE_OWN_SESSION, set by the playbooks'
# package install, which setsid detaches): that outlives the SSH session, as on a real host,
# where only the wrapper's kill of the command's process group ends what the session ran. With
# SECONDS it returns after that long (the delay fault), and kubeadm goes on.
fault_hang() {
    local session sleeper="" left=${1:--1}
    session=$(session_sshd_pids | head -n 1)
    trap '[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null; exit 129' HUP
    trap '[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null; exit 130' INT
    trap '[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null; exit 143' TERM
    while [ "$left" -ne 0 ]; do
        left=$((left - 1))
        sleep 1 &
        sleeper=$!
        wait "$sleeper"
        if [ -n "$session" ] && [ ! -d "/proc/$session" ] && [ -z "${KUPGRADE_OWN_SESSION:-}" ]; then
            lab_log "hang ended: ssh session $session is gone"
            exit 129
        fi
    done
    trap - HUP INT TERM
    lab_log "delay ended: going on"
}

# fault_drop kills the sshd processes of this session: the client sees its connection drop.
fault_drop() {
    local pids
    pids=$(session_sshd_pids)
    if [ -z "$pids" ]; then
        echo "kupgrade-lab: drop fault outside an SSH session" >&2
        exit 255
    fi
    kill -KILL $pids 2>/dev/null
    exit 255
}
