#!/bin/bash
# build-all.sh RECIPE BIN OUT PKGS NODETAG MIRROR DEBS VERSION...: everything a real lab needs.
#   RECIPE   this folder (extracted by the lab package)
#   BIN      binaries cache, one folder per version (kept across recipe changes of the images)
#   OUT      the image archives' folder: images-<version>.tar
#   PKGS     the Debian packages: PKGS/repo/core:/stable:/v1.Y/deb/ per minor, PKGS/bin/serve
#   NODETAG  the node image to build
#   MIRROR   the Debian archive; DEBS the debootstrap package cache
#   VERSION  the Kubernetes versions of the lab, in order (it starts at the first)
# Every step is skipped when its result exists, so a warm run is seconds.
set -euo pipefail
recipe=$1 bin=$2 out=$3 pkgs=$4 nodetag=$5 mirror=$6 debs=$7
shift 7
versions=("$@")
hash=$(basename "$out")
step() { printf '%s build-all: %s\n' "$(date -u +%T)" "$*"; }

for v in "${versions[@]}"; do
    if [ ! -x "$bin/$v/kube-proxy" ]; then
        step "Kubernetes $v from source"
        nice -n 10 "$recipe/build.sh" "$bin/$v.tmp" "$v" && rm -rf "$bin/$v" && mv "$bin/$v.tmp" "$bin/$v"
    fi
done
if [ ! -x "$bin/tools/crictl" ] || [ ! -x "$bin/tools/pause" ]; then
    step "crictl and pause"
    mkdir -p "$bin/tools"
    CGO_ENABLED=0 GOBIN="$bin/tools" nice -n 10 go install -trimpath -ldflags '-s -w' sigs.k8s.io/cri-tools/cmd/crictl@v1.34.0
    (cd "$recipe/pause" && CGO_ENABLED=0 GO111MODULE=off nice -n 10 go build -trimpath -ldflags '-s -w' -o "$bin/tools/pause" main.go)
fi

debpkgs=iptables,conntrack,ipset,kmod  # the kube-proxy image's base and the node image's
base=kupgrade-lab-real-debian:$(echo "bookworm $debpkgs" | sha256sum | cut -c1-12)
if ! docker image inspect "$base" >/dev/null 2>&1; then
    step "Debian base of the kube-proxy image (debootstrap)"
    root=$(mktemp -d /tmp/kupgrade-lab-real-root.XXXXXX)
    trap 'rm -rf "$root"' EXIT
    mkdir -p "$debs"
    debootstrap --variant=minbase --include="$debpkgs" --cache-dir="$debs" bookworm "$root" "$mirror" >/dev/null
    rm -rf "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/usr/share/doc "$root"/usr/share/man
    tar -C "$root" --numeric-owner -c . | docker import - "$base" >/dev/null
    rm -rf "$root"
fi

for v in "${versions[@]}"; do
    [ -s "$out/images-$v.tar" ] || "$recipe/images/build.sh" "$recipe/images" "$bin/$v" "$bin/tools" "$base" "$v" "$out/images-$v.tar" "$hash"
done

# The packages: one repository per minor, served to the nodes by PKGS/bin/serve.
for v in "${versions[@]}"; do
    index=$pkgs/repo/core:/stable:/${v%.*}/deb/Packages
    if ! grep -qs "^Filename: ./kubectl_${v#v}-1.1_" "$index"; then
        step "packages of $v (dpkg-deb)"
        "$recipe/pkgs/build.sh" "$bin/$v" "$pkgs/repo" "$v"
    fi
done
if [ ! -x "$pkgs/bin/serve" ]; then
    mkdir -p "$pkgs/bin"
    (cd "$recipe/pkgs" && CGO_ENABLED=0 GO111MODULE=off nice -n 10 go build -trimpath -ldflags '-s -w' -o "$pkgs/bin/serve" serve.go)
fi

if ! docker image inspect "$nodetag" >/dev/null 2>&1; then
    step "node image $nodetag"
    docker build -q --build-arg "BASE=$base" --build-arg "MIRROR=$mirror" -t "$nodetag" "$recipe/node" >/dev/null
fi
step "done"
