#!/bin/bash
# build-all.sh RECIPE BIN OUT FROM TO NODETAG MIRROR DEBS: everything a real lab needs.
#   RECIPE   this folder (extracted by the lab package)
#   BIN      binaries cache, one folder per version (kept across recipe changes of the images)
#   OUT      the image archives' folder: images-<version>.tar
#   FROM TO  the Kubernetes versions the lab starts at and upgrades to
#   NODETAG  the node image to build
#   MIRROR   the Debian archive; DEBS the debootstrap package cache
# Every step is skipped when its result exists, so a warm run is seconds.
set -euo pipefail
recipe=$1 bin=$2 out=$3 from=$4 to=$5 nodetag=$6 mirror=$7 debs=$8
hash=$(basename "$out")
step() { printf '%s build-all: %s\n' "$(date -u +%T)" "$*"; }

for v in "$from" "$to"; do
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

for v in "$from" "$to"; do
    [ -s "$out/images-$v.tar" ] || "$recipe/images/build.sh" "$recipe/images" "$bin/$v" "$bin/tools" "$base" "$v" "$out/images-$v.tar" "$hash"
done

if ! docker image inspect "$nodetag" >/dev/null 2>&1; then
    step "node image $nodetag"
    docker build -q --build-arg "BASE=$base" --build-arg "MIRROR=$mirror" -t "$nodetag" "$recipe/node" >/dev/null
fi
step "done"
