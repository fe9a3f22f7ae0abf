package runner

import "github.com/kupgrade/kupgrade/internal/fencefile"

// fenceScript runs as root around the command: its parameters are fencefile.ScriptParams, the
// command follows. It holds no single quote, so quote keeps it one plain '...' word that
// sshconn's `exec WORD...` fast path reads as is. The command runs in the background with the
// lock's descriptor 9 closed and stdin handed over through fd 3 (dash gives a background
// command /dev/null otherwise); the wrapper waits for it and keeps the lock until it has ended.
// A TERM, INT or HUP the wrapper gets goes on to the command, with KILL a second later when it
// is still there: the transport's KILL, which follows its TERM, reaches the wrapper alone, and
// must not leave the command running without the lock.
var fenceScript = fencefile.ScriptParams + `
shift 8
r() { echo "kupgrade fence: $*" >&2; exit 75; }
` + fencefile.Shell + `
held() { echo "cluster ${sc:-?}, generation ${sg:-?}, owner ${so:-?}, since ${st:-?}: ${sl:-?}"; }
fence_ids() {
  cn=${c%#*} cu= od= scn=${sc%#*} scu= sor=${so%%#*} sod=
  case $c in *#*) cu=${c##*#} ;; esac
  case $o in *#*) od=${o#*#} ;; esac
  case $sc in *#*) scu=${sc##*#} ;; esac
  case $so in *#*) sod=${so#*#} ;; esac
  [ -n "$cu" ] && [ -n "$scu" ] && { [ "$cu" = "$scu" ]; return; }
  [ "$cn" = "$scn" ]
}
fence_other() {
  if ! fence_ids; then
    r "this host belongs to a live upgrade of cluster $scn${scu:+ (kube-system uid $scu)} ($(held)): a command of cluster $cn${cu:+ (kube-system uid $cu)} must not run on it; check that the inventory (-i) and --cluster name the same cluster"
  fi
  [ "$sk" = "$k" ] && return 0
  [ -n "$od" ] && [ "$sod" = "$od" ] && [ "$scn" = "$cn" ] && return 0
  r "one cluster, one upgrade: cluster $cn${cu:+ (kube-system uid $cu)} has a live upgrade, $sk (as $scn), run by $sor with the database ${sod:-unknown (an older kupgrade)}, whose command ($sl) ran here since $st; this kupgrade (${o%%#*} with the database ${od:-unknown}) must not run beside it: finish or abort that upgrade with its database (--db), or wait until its claim passes (a lease TTL after its last command here)"
}
damaged() { r "$1 cannot be read (empty, torn or edited by hand): no command runs on its word; once no kupgrade command runs on this host (flock -n $d/` + fencefile.LockFile + ` true succeeds), remove $1 and retry"; }
command -v flock >/dev/null 2>&1 || r "flock (util-linux) is missing on this host: no command runs unfenced"
mkdir -p -m 700 "$d" 2>/dev/null || r "cannot create $d"
touch "$d/` + fencefile.LockFile + `" 2>/dev/null || r "cannot open $d/` + fencefile.LockFile + `"
exec 8>>"$d/` + fencefile.GenLockFile + `" && flock 8 || r "cannot lock $d/` + fencefile.GenLockFile + `"
fence_announce "$k" "$g"
case $? in 0) ;; 2) damaged "$d/` + fencefile.GenFile + `" ;; *) r "cannot write $d/` + fencefile.GenFile + `" ;; esac
exec 8>&-
exec 9>>"$d/` + fencefile.LockFile + `"
waited=0
if ! flock -n 9; then
  waited=1
  if ! flock -w "$w" 9; then
    fence_stamp
    r "another kupgrade command is still running on this host ($(held)); waited ${w}s for it to end: wait for it, then retry"
  fi
fi
fence_stamp || damaged "$d/` + fencefile.StampFile + `"
if [ "$sk" = "$k" ] && [ "$sg" -gt "$g" ]; then
  r "a newer operation (generation $sg, owner $so) owns this host: this kupgrade (generation $g, owner $o) lost its lease and must not start new work"
fi
if [ -n "$sc" ] && [ "$sc" != - ] && { [ $waited = 1 ] || [ "$(date +%s)" -lt "$su" ]; }; then
  fence_other
fi
fence_announced "$k" || damaged "$d/` + fencefile.GenFile + `"
if [ -n "$ag" ] && [ "$ag" -gt "$g" ]; then
  r "a newer operation (generation $ag) is waiting for this host: this kupgrade (generation $g, owner $o) lost its lease and must not start new work"
fi
s0=$(date -u +%Y-%m-%dT%H:%M:%SZ)
fence_put "$c" "$k" "$g" "$o" "$s0" "$t" "$l" || r "cannot write $d/` + fencefile.StampFile + `"
p=
z() {
  [ -n "$p" ] || exit 143
  kill -$1 $p 2>/dev/null; n=0
  while [ $n -lt 10 ] && kill -0 $p 2>/dev/null; do sleep 0.1 2>/dev/null || { sleep 1; n=9; }; n=$((n+1)); done
  kill -KILL $p 2>/dev/null
}
trap "z TERM" TERM
trap "z INT" INT
trap "z HUP" HUP
exec 3<&0
"$@" 9>&- <&3 3<&- &
p=$!
exec 3<&-
while :; do wait $p; e=$?; kill -0 $p 2>/dev/null || break; done
fence_put "$c" "$k" "$g" "$o" "$s0" "$t" "$l" 2>/dev/null
exit $e`
