# pkg.sh: the simulated package managers' shared part (sourced after lib.sh and fault.sh by the
# lab's apt-get, apt-mark, apt-cache, dpkg-query and dpkg, and by its dnf and rpm). Only kubeadm,
# kubelet and kubectl are simulated; any other package goes to Debian's own tool (apt) or is
# unknown (dnf, rpm).
#
# The repositories follow the Kubernetes community packages' layout, one per minor, on the lab's
# shared volume (standing in for the package server): $PKGS/core:/stable:/v1.30/deb/Packages
# holds "NAME VERSION" lines. A node's source line names one of them, as an operator's does:
#   deb [signed-by=...] file:$PKGS/core:/stable:/v1.30/deb/ /
# apt-get update copies what the source lines name into the node's lists; install reads only the
# lists, so a rewritten source line means nothing before the next update, as with apt. The -o
# options that point apt at other sources and lists (apt_option) are honoured, so a query of
# another minor's repository from a copy of the source leaves the node's own lists alone.
# Installed versions are the files the simulated binaries read ($LAB/kubeadm-version, ...);
# holds are files under $LAB/dpkg/holds; a dpkg killed mid-install leaves $LAB/dpkg/interrupted.
#
# An RPM host (LAB_PKG_MGR=dnf) has the same per-minor layout as the community's rpm packages:
# $PKGS/core:/stable:/v1.30/rpm/repodata/primary holds "NAME VERSION-RELEASE" lines
# (1.30.1-150500.1.1), and /etc/yum.repos.d/kubernetes.repo names one minor in its baseurl, with
# exclude= as the hold. dnf reads the repositories the .repo files name each time (no cache).

PKGS=$SHARED/pkgs
K8S_PACKAGES="kubeadm kubelet kubectl"
APT_SOURCES=/etc/apt/sources.list.d
APT_LISTS=$LAB/apt/lists
DPKG=$LAB/dpkg
INTERRUPTED=$DPKG/interrupted

is_k8s_package() { case " $K8S_PACKAGES " in *" $1 "*) return 0 ;; esac; return 1; }

# installed_file PKG: the file holding PKG's installed version (vX.Y.Z), read by its binary.
installed_file() {
    case $1 in
    kubeadm) echo "$LAB/kubeadm-version" ;;
    kubelet) echo "$LAB/kubelet-installed" ;;
    kubectl) echo "$LAB/kubectl-version" ;;
    esac
}

# installed_version PKG: the Debian version installed (1.30.1-1.1), empty when none.
installed_version() {
    local v
    v=$(cat "$(installed_file "$1")" 2>/dev/null) || return 0
    [ -n "$v" ] && echo "${v#v}-1.1"
}

YUM_REPOS=/etc/yum.repos.d
RPM_RELEASE=150500.1.1

# rpm_installed_version PKG: the RPM version-release installed (1.30.1-150500.1.1), empty when none.
rpm_installed_version() {
    local v
    v=$(cat "$(installed_file "$1")" 2>/dev/null) || return 0
    [ -n "$v" ] && echo "${v#v}-$RPM_RELEASE"
}

is_held() { [ -f "$DPKG/holds/$1" ]; }

# apt_option NAME=VALUE: one of apt's -o options the lab's apt honours, as apt does:
# Dir::Etc::sourcelist (one more source file), Dir::Etc::sourceparts (- for none) and
# Dir::State::Lists (where update writes the lists and apt-cache and install read them).
apt_option() {
    case $1 in
    Dir::Etc::sourcelist=*) APT_SOURCELIST=${1#*=} ;;
    Dir::Etc::sourceparts=*) APT_SOURCES=${1#*=} ;;
    Dir::State::Lists=*) APT_LISTS=${1#*=} ;;
    esac
}

# source_urls: the file: URLs of the deb lines of the source files apt reads, in file order.
source_urls() {
    local files=()
    [ -n "${APT_SOURCELIST:-}" ] && files+=("$APT_SOURCELIST")
    [ "$APT_SOURCES" != - ] && files+=("$APT_SOURCES"/*.list)
    cat "${files[@]}" 2>/dev/null | sed -n -E 's#^deb( \[[^]]*\])? (file:[^ ]*) .*#\2#p'
}

list_name() { echo "$1" | tr '/:' '__'; }

# candidates PKG: "VERSION URL" lines for PKG in the node's lists, newest first.
candidates() {
    local f url
    for f in "$APT_LISTS"/*; do
        [ -f "$f" ] || continue
        url=$(head -n 1 "$f")
        tail -n +2 "$f" | awk -v p="$1" -v u="$url" '$1 == p { print $2, u }'
    done | sort -t. -k1,1nr -k2,2nr -k3,3nr -u
}

# debian_version_cmp A B prints -1, 0 or 1 for versions like 1.30.1-1.1.
debian_version_cmp() { version_cmp "v${1%%-*}" "v${2%%-*}"; }

# pkg_lock: takes the dpkg frontend lock on fd 9, or prints apt's refusal and exits 100.
pkg_lock() {
    mkdir -p "$DPKG/holds"
    exec 9>> "$DPKG/lock-frontend"
    if ! flock -n 9; then
        echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process $(cat "$DPKG/lock-pid" 2>/dev/null || echo 0) (apt-get)" >&2
        echo "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?" >&2
        exit 100
    fi
    echo $$ > "$DPKG/lock-pid"
}

# pkg_write PKG DEBVERSION: the package's files at that version (what dpkg unpacks).
pkg_write() {
    echo "v${2%%-*}" | write_atomic "$(installed_file "$1")"
    lab_log "package $1 $2 installed"
}
