# kubectl-drain.sh: the simulated kubectl's cordon and drain (sourced after lib.sh and fault.sh).
#
# The lab's workload lives on the shared volume, as the API server would keep it:
#   $SHARED/pods/NS/NAME   key=value lines: node=NODE (empty: Pending), owner=ReplicaSet|
#                          DaemonSet|none, app=LABEL, emptydir=true|false
#   $SHARED/pdbs/NS/NAME   app=LABEL, min_available=N: a PodDisruptionBudget over the pods of app
# A drain evicts through the budgets as the eviction API does: an eviction that would leave a
# budget's app with fewer healthy (scheduled) pods than min_available is refused (HTTP 429) and
# retried every 5 s until --timeout; an evicted ReplicaSet pod comes back on another schedulable
# node, or stays Pending if there is none. DaemonSet pods, pods of no controller and pods with
# emptyDir data refuse the drain unless --ignore-daemonsets, --force, --delete-emptydir-data.

PODS=$SHARED/pods
PDBS=$SHARED/pdbs

# seconds_of DURATION: 90s, 5m, 1m30s, 0 -> seconds.
seconds_of() {
    local d=$1 s=0 n
    [[ $d =~ ^[0-9]+$ ]] && { echo "$d"; return; }
    while [[ $d =~ ^([0-9]+)([hms])(.*)$ ]]; do
        n=${BASH_REMATCH[1]}
        case ${BASH_REMATCH[2]} in h) s=$((s + n * 3600)) ;; m) s=$((s + n * 60)) ;; s) s=$((s + n)) ;; esac
        d=${BASH_REMATCH[3]}
    done
    echo "$s"
}

# go_duration SECONDS: as Go prints a time.Duration (5m0s, 10s).
go_duration() {
    local s=$1
    if ((s >= 60)); then echo "$((s / 60))m$((s % 60))s"; else echo "${s}s"; fi
}

field() {
    local k v
    while IFS='=' read -r k v; do [ "$k" = "$2" ] && { echo "$v"; return; }; done < "$1"
}

cordon() {
    if [ -f "$SHARED/nodes/$node/cordoned" ]; then
        echo "node/$node already cordoned"
    else
        touch "$SHARED/nodes/$node/cordoned"
        echo "node/$node cordoned"
    fi
}

# healthy NS APP: pods of APP in NS that are scheduled.
healthy() {
    grep -l -x "app=$2" "$PODS/$1"/* 2>/dev/null | xargs -r grep -l '^node=.' | wc -l
}

# evict POD_FILE: 0 when evicted, 1 when a budget refuses. Under the workload's lock, so two
# drains never both spend a budget's last disruption.
evict() {
    local f=$1 ns app b other="" d
    ns=$(basename "$(dirname "$f")") app=$(field "$f" app)
    (
        flock 7
        for b in "$PDBS/$ns"/*; do
            [ -f "$b" ] && [ "$(field "$b" app)" = "$app" ] || continue
            (($(healthy "$ns" "$app") - 1 < $(field "$b" min_available))) && exit 1
        done
        for d in "$SHARED"/nodes/*/; do
            d=$(basename "$d")
            [ "$d" != "$node" ] && [ ! -f "$SHARED/nodes/$d/cordoned" ] && { other=$d; break; }
        done
        sed -i "s/^node=.*/node=$other/" "$f"
    ) 7>> "$SHARED/pods.lock"
}

# drain_refusals: the pods the flags do not allow to go, as kubectl lists them; sets to_evict.
drain_refusals() {
    local f owner ds=() bare=() local_data=() msgs=()
    to_evict=()
    for f in "$PODS"/*/*; do
        [ -f "$f" ] && [ "$(field "$f" node)" = "$node" ] || continue
        owner=$(field "$f" owner) id=$(basename "$(dirname "$f")")/$(basename "$f")
        case $owner in
        DaemonSet) ds+=("$id"); continue ;;
        none) bare+=("$id") ;;
        esac
        [ "$(field "$f" emptydir)" = true ] && local_data+=("$id")
        to_evict+=("$f")
    done
    if [ ${#ds[@]} -gt 0 ]; then
        if has_flag --ignore-daemonsets; then warnings+=("Warning: ignoring DaemonSet-managed Pods: $(join_ids "${ds[@]}")")
        else msgs+=("cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): $(join_ids "${ds[@]}")"); fi
    fi
    if [ ${#bare[@]} -gt 0 ]; then
        if has_flag --force; then warnings+=("Warning: deleting Pods that declare no controller: $(join_ids "${bare[@]}")")
        else msgs+=("cannot delete Pods declare no controller (use --force to override): $(join_ids "${bare[@]}")"); fi
    fi
    if [ ${#local_data[@]} -gt 0 ] && ! has_flag --delete-emptydir-data; then
        msgs+=("cannot delete Pods with local storage (use --delete-emptydir-data to override): $(join_ids "${local_data[@]}")")
    fi
    [ ${#msgs[@]} -gt 0 ] && printf '%s\n' "${msgs[@]}"
}

join_ids() { local IFS=,; echo "$*" | sed 's/,/, /g'; }

drain() {
    local refusals warnings=() f left deadline session out nap
    deadline=$(($(date +%s) + timeout))
    cordon
    fault_point in evict
    out=$(mktemp)
    drain_refusals > "$out"
    refusals=$(cat "$out")
    rm -f "$out"
    if [ -n "$refusals" ]; then
        echo "error: unable to drain node \"$node\" due to error: $(echo "$refusals" | paste -sd';' - | sed 's/;/, /g'), continuing command..." >&2
        printf 'There are pending nodes to be drained:\n %s\n%s\n' "$node" "$refusals" >&2
        exit 1
    fi
    [ ${#warnings[@]} -gt 0 ] && printf '%s\n' "${warnings[@]}" >&2
    for f in "${to_evict[@]}"; do echo "evicting pod $(basename "$(dirname "$f")")/$(basename "$f")"; done
    session=$(session_sshd_pids | head -n 1)
    while :; do
        left=()
        for f in "${to_evict[@]}"; do
            if evict "$f"; then
                echo "pod/$(basename "$f") evicted"
            else
                echo "error when evicting pods/\"$(basename "$f")\" -n \"$(basename "$(dirname "$f")")\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget." >&2
                left+=("$f")
            fi
        done
        [ ${#left[@]} -eq 0 ] && { echo "node/$node drained"; return 0; }
        to_evict=("${left[@]}")
        if ((timeout > 0)) && (($(date +%s) >= deadline)); then drain_timed_out; fi
        nap=5
        ((timeout > 0 && deadline - $(date +%s) < nap)) && nap=$((deadline - $(date +%s)))
        sleep "$nap" &
        wait $!
        [ -n "$session" ] && [ ! -d "/proc/$session" ] && exit 129
    done
}

drain_timed_out() {
    local f errs=() d
    d=$(go_duration "$timeout")
    for f in "${to_evict[@]}"; do
        errs+=("error when evicting pods/\"$(basename "$f")\" -n \"$(basename "$(dirname "$f")")\": global timeout reached: $d")
    done
    echo "There are pending pods in node \"$node\" when an error occurred: [$(join_ids "${errs[@]}")]" >&2
    echo "error: unable to drain node \"$node\" due to error: [$(join_ids "${errs[@]}")], continuing command..." >&2
    printf 'There are pending nodes to be drained:\n %s\n' "$node" >&2
    printf '%s\n' "${errs[@]}" >&2
    exit 1
}

get_pdbs() {
    local b ns all=false
    has_flag -A || has_flag --all-namespaces && all=true
    [ "$output" = json ] && { pdbs_json "$all"; return; }
    has_flag --no-headers || {
        $all && printf '%-12s ' NAMESPACE
        printf '%-16s %-15s %-17s %-21s %s\n' NAME "MIN AVAILABLE" "MAX UNAVAILABLE" "ALLOWED DISRUPTIONS" AGE
    }
    for b in "$PDBS"/*/*; do
        [ -f "$b" ] || continue
        ns=$(basename "$(dirname "$b")")
        $all || [ "$ns" = "${namespace:-default}" ] || continue
        $all && printf '%-12s ' "$ns"
        printf '%-16s %-15s %-17s %-21s %s\n' "$(basename "$b")" "$(field "$b" min_available)" N/A \
            "$(allowed "$b")" 1h
    done
}

# pdbs_json ALL: the budgets (every namespace's when ALL is true) as kubectl get pdb -o json
# lists them: name, namespace, the app label they select and the disruptions allowed now.
pdbs_json() {
    local b ns sep=""
    printf '{"kind":"List","items":['
    for b in "$PDBS"/*/*; do
        [ -f "$b" ] || continue
        ns=$(basename "$(dirname "$b")")
        $1 || [ "$ns" = "${namespace:-default}" ] || continue
        printf '%s{"metadata":{"name":"%s","namespace":"%s"},"spec":{"selector":{"matchLabels":{"app":"%s"}}},"status":{"disruptionsAllowed":%s}}' \
            "$sep" "$(basename "$b")" "$ns" "$(field "$b" app)" "$(allowed "$b")"
        sep=,
    done
    printf ']}\n'
}

# allowed PDB_FILE: the disruptions the budget allows now (never below 0).
allowed() {
    local ns a
    ns=$(basename "$(dirname "$1")")
    a=$(($(healthy "$ns" "$(field "$1" app)") - $(field "$1" min_available)))
    ((a < 0)) && a=0
    echo "$a"
}
