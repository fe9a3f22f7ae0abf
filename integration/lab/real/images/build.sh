#!/bin/bash
# images/build.sh HERE BIN TOOLS BASE VERSION ARCHIVE HASH: the images kubeadm VERSION asks for
# (`kubeadm config images list`), built locally under those exact names and saved as one archive
# that a node imports with `ctr -n k8s.io images import`. No registry is involved.
#   control-plane components: FROM scratch, the static binary on PATH;
#   kube-proxy: the Debian base (iptables, conntrack);
#   pause: the lab's pause (sleeps until SIGTERM, exits 0 on -v);
#   coredns: the pause binary under CoreDNS's name, so that the Deployment's pods start; it
#   answers no DNS (the lab's tests need none).
# The names are tagged only while saving; what stays in Docker is tagged by HASH.
set -euo pipefail
here=$1 bin=$2 tools=$3 base=$4 version=$5 archive=$6 hash=$7
ctx=$(mktemp -d /tmp/kupgrade-lab-real-img.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
mapfile -t names < <("$bin/kubeadm" config images list --kubernetes-version "$version" 2>/dev/null | grep -v '/etcd:')
printf '%s build-all: images of %s: %s\n' "$(date -u +%T)" "$version" "${names[*]}"
for name in "${names[@]}"; do
    component=${name##*/}; component=${component%%:*}
    case $component in
    kube-proxy) from=$base; binary=$bin/kube-proxy ;;
    kube-*) from=scratch; binary=$bin/$component ;;
    pause|coredns) from=scratch; binary=$tools/pause; component=$component ;;
    *) echo "images/build.sh: no recipe for image $name" >&2; exit 1 ;;
    esac
    rm -rf "$ctx"/*
    cp "$binary" "$ctx/$component"
    sed -e "s|@FROM@|$from|g" -e "s|@BINARY@|$component|g" "$here/Dockerfile" > "$ctx/Dockerfile"
    docker build -q -t "$name" -t "kupgrade-lab-real-img:$hash-$component-$version" "$ctx" >/dev/null
done
docker save -o "$archive.tmp" "${names[@]}"
for name in "${names[@]}"; do docker rmi "$name" >/dev/null; done
mv "$archive.tmp" "$archive"
