#!/bin/bash
# pkgs/build.sh BIN REPO VERSION: the Debian packages kubeadm, kubelet and kubectl of VERSION,
# made with dpkg-deb from the binaries in BIN, in REPO's repository of VERSION's minor, laid out
# as the Kubernetes community packages are: one flat repository per minor
# (REPO/core:/stable:/v1.Y/deb/ with Packages and Release), package versions "1.Y.Z-1.1".
# The packages are not compressed (-Znone): they never leave this machine, and compressing
# 200 MB of binaries costs minutes on two cores.
set -euo pipefail
bin=$1 repo=$2 version=$3
minor=${version%.*}
dir=$repo/core:/stable:/$minor/deb
arch=$(dpkg --print-architecture)
mkdir -p "$dir"
root=$(mktemp -d /tmp/kupgrade-lab-real-deb.XXXXXX)
trap 'rm -rf "$root"' EXIT
for pkg in kubeadm kubelet kubectl; do
    rm -rf "${root:?}"/*
    mkdir -p "$root/DEBIAN" "$root/usr/bin"
    cp "$bin/$pkg" "$root/usr/bin/$pkg"
    cat > "$root/DEBIAN/control" <<CONTROL
Package: $pkg
Version: ${version#v}-1.1
Architecture: $arch
Maintainer: kupgrade lab <lab@kupgrade.invalid>
Installed-Size: $(($(stat -c %s "$bin/$pkg") / 1024))
Section: admin
Priority: optional
Description: Kubernetes $pkg $version, built from source by the kupgrade real lab
CONTROL
    dpkg-deb --root-owner-group -Znone -b "$root" "$dir/${pkg}_${version#v}-1.1_$arch.deb" >/dev/null
done
cd "$dir"
dpkg-scanpackages --multiversion . /dev/null > Packages.tmp 2>/dev/null
mv Packages.tmp Packages
{
    echo "Origin: kupgrade-lab"
    echo "Label: Kubernetes $minor (kupgrade real lab)"
    echo "Date: $(date -Ru)"
    echo "SHA256:"
    printf ' %s %s Packages\n' "$(sha256sum Packages | cut -d' ' -f1)" "$(stat -c %s Packages)"
} > Release.tmp
mv Release.tmp Release
