package health

import (
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// The package managers kupgrade drives, as the install in playbooks/control-plane.yml and
// playbooks/kubelet.yml picks them: ansible_pkg_mgr when the inventory sets it, else the first
// of apt-get, dnf and yum the host has.
const (
	managerAuto = "auto"
	managerApt  = "apt"
)

// pickManager is the shell that sets mgr (and prints it as the "mgr" section) the way the
// install picks it.
func pickManager(mgr string) string {
	if mgr == "" {
		mgr = managerAuto
	}
	return `mgr=` + shellQuote(mgr) + `
if [ "$mgr" = ` + managerAuto + ` ]; then
  for m in apt-get dnf yum; do
    if command -v "$m" >/dev/null 2>&1; then mgr=${m%-get}; break; fi
  done
fi
echo "` + sectionMark + `mgr rc=0"; echo "$mgr"
`
}

// InstalledScript reports, as root, the versions of pkgs installed and whether each is held:
// dpkg-query's status (apt-mark hold sets it) on apt, rpm -q and the versionlock list and the
// repositories' exclude= lines on dnf and yum. ParseInstalled reads its output.
func InstalledScript(mgr string, pkgs []string) string {
	return runner + pickManager(mgr) + `P=` + shellQuote(strings.Join(pkgs, " ")) + `
case $mgr in
apt) run installed dpkg-query -W -f '${Package} ${Version} ${Status}\n' $P ;;
dnf | yum)
  run installed rpm -q --qf '%{NAME} %{VERSION}-%{RELEASE}\n' $P
  run held sh -c "{ $mgr versionlock list 2>/dev/null; sed -n 's/^exclude *= *//p' /etc/yum.repos.d/*.repo /etc/dnf/dnf.conf /etc/yum.conf 2>/dev/null; } || true" ;;
esac
`
}

// OfferedScript is InstalledScript, then, for each minor ("v1.31") and the packages asked there,
// what the host's Kubernetes repository of that minor offers, asked as the install asks it: the
// host's own source (the line or file naming core:/stable:/vX.Y/) rewritten to the minor, in a
// temporary copy with lists of its own, so the host's sources, lists and caches stay as they
// were. Sections: repo-MINOR (the repository asked), update-MINOR (apt), offered-MINOR-PACKAGE
// (apt-cache madison; dnf/yum list --showduplicates).
func OfferedScript(mgr string, pkgs []string, asked []HopPackages) string {
	var loop strings.Builder
	for _, a := range asked {
		loop.WriteString("ask " + shellQuote(a.minor()) + " " + shellQuote(strings.Join(a.Packages, " ")) + "\n")
	}
	return InstalledScript(mgr, pkgs) + `nosource() { echo "` + sectionMark + `source rc=1"; echo "$1"; exit 0; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
case $mgr in
apt)
  src=$(grep -l 'core:/stable:/v[0-9.]*/deb' /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null | head -n 1)
  [ -n "$src" ] || nosource "no apt source names a Kubernetes package repository (.../core:/stable:/vX.Y/deb/)"
  ask() {
    d=$tmp/$1; mkdir -p "$d/lists/partial"
    sed "s#core:/stable:/v[0-9.]*/deb#core:/stable:/$1/deb#" "$src" > "$d/sources.list"
    echo "` + sectionMark + `repo-$1 rc=0"; grep -o '[a-z]*:[^ ]*core:/stable:/[^ ]*' "$d/sources.list" | head -n 1
    set -- "$1" "$2" -o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts=- -o Dir::State::Lists="$d/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
    m=$1 ps=$2; shift 2
    run "update-$m" apt-get -q "$@" update
    for p in $ps; do run "offered-$m-$p" apt-cache "$@" madison "$p"; done
  } ;;
dnf | yum)
  src=$(grep -l 'core:/stable:/v[0-9.]*/rpm' /etc/yum.repos.d/*.repo 2>/dev/null | head -n 1)
  [ -n "$src" ] || nosource "no file of /etc/yum.repos.d names a Kubernetes package repository (.../core:/stable:/vX.Y/rpm/)"
  ask() {
    d=$tmp/$1; mkdir -p "$d"
    sed "s#core:/stable:/v[0-9.]*/rpm#core:/stable:/$1/rpm#g" "$src" > "$d/kubernetes.repo"
    echo "` + sectionMark + `repo-$1 rc=0"; grep -o '[a-z]*:[^ ]*core:/stable:/[^ ]*' "$d/kubernetes.repo" | head -n 1
    for p in $2; do run "offered-$1-$p" "$mgr" -q --setopt=reposdir="$d" --disableexcludes=all list --showduplicates "$p"; done
  } ;;
*) nosource "package manager \"$mgr\" is not one kupgrade drives (apt, dnf, yum)" ;;
esac
` + loop.String()
}

// HopPackages are the packages asked at one hop's version, of its minor's repository.
type HopPackages struct {
	Version  state.Version
	Packages []string
}

// minor is the repository's name for the version's minor: "v1.31".
func (h HopPackages) minor() string { return fmt.Sprintf("v%d.%d", h.Version.Major, h.Version.Minor) }
