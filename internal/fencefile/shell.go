package fencefile

import "strconv"

// ScriptParams starts the fence script (runner.Fence) and names its parameters: the fence's
// folder, the wait in seconds, the cluster, key, generation and owner, the claim in seconds (how
// long the host stays the cluster's after a command) and the label; the command follows. A
// simulated host recognises a fenced command by it.
const ScriptParams = "d=$1 w=$2 c=$3 k=$4 g=$5 o=$6 t=$7 l=$8"

// Shell defines the shell functions (POSIX sh, with cksum, tail and date from the host) that read
// and write the fence's files in the folder $d. They hold no single quote, so a script that
// embeds them stays one '...' word.
//
//	fence_stamp              read StampFile into sc sk sg so st su sl (all empty when there is
//	                         none); status 1, with the line in sb, when it is damaged
//	fence_put C K G O S T L  write the stamp atomically, until = now + T seconds; 1 on failure,
//	                         the stamp untouched (a date or cksum killed by the session's hangup
//	                         never replaces a good stamp with one that has no checksum)
//	fence_announce K G       under the caller's lock on GenLockFile, raise K's announcement to G
//	                         (never lower it) and keep the other keys' (the newest
//	                         MaxAnnouncements lines); 1 when it cannot write, 2 when GenFile is
//	                         damaged
//	fence_announced K        set ag to K's announced generation ("" when none); 2 when damaged
var Shell = `fence_stamp() {
  sc= sk= sg= so= st= su= sl= sb=
  [ -e "$d/` + StampFile + `" ] || return 0
  IFS= read -r sb < "$d/` + StampFile + `" || return 1
  fence_v=${sb%% *} fence_r=${sb#* }
  fence_c=${fence_r%% *} fence_r=${fence_r#* }
  [ "$fence_v" = ` + Version + ` ] && [ "$fence_c" = "$(printf %s "$fence_r" | cksum | { read -r a b; echo "$a"; })" ] || return 1
  read -r sc sk sg so st su sl <<EOF
$fence_r
EOF
  case $sg in ""|*[!0-9]*) return 1 ;; esac
  case $su in ""|*[!0-9]*) return 1 ;; esac
  [ -n "$sl" ]
}
fence_put() {
  fence_n=$(date +%s) && [ -n "$fence_n" ] || return 1
  fence_b="$1 $2 $3 $4 $5 $(( fence_n + $6 )) $7"
  fence_s=$(printf %s "$fence_b" | cksum) && [ -n "$fence_s" ] || return 1
  set -- $fence_s
  printf "` + Version + ` %s %s\n" "$1" "$fence_b" > "$d/` + StampFile + `.tmp" && mv -f "$d/` + StampFile + `.tmp" "$d/` + StampFile + `"
}
fence_gen_read() {
  ag= fence_k= fence_g=
  [ -e "$d/` + GenFile + `" ] || return 0
  while IFS=" " read -r fence_k fence_g fence_x; do
    case $fence_g in ""|*[!0-9]*) return 2 ;; esac
    [ -z "$fence_x" ] || return 2
    if [ "$fence_k" = "$1" ]; then ag=$fence_g; else printf "%s %s\n" "$fence_k" "$fence_g" >> "$2" || return 1; fi
  done < "$d/` + GenFile + `"
  [ -z "$fence_k$fence_g" ] || return 2
}
fence_announced() { fence_gen_read "$1" /dev/null; }
fence_announce() {
  : > "$d/` + GenFile + `.tmp" || return 1
  fence_gen_read "$1" "$d/` + GenFile + `.tmp" || return
  [ -n "$ag" ] && [ "$ag" -ge "$2" ] || ag=$2
  printf "%s %s\n" "$1" "$ag" >> "$d/` + GenFile + `.tmp" || return 1
  tail -n ` + strconv.Itoa(MaxAnnouncements) + ` "$d/` + GenFile + `.tmp" > "$d/` + GenFile + `.new" && mv -f "$d/` + GenFile + `.new" "$d/` + GenFile + `"
}
`
