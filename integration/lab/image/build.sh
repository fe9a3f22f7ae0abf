#!/bin/bash
# build.sh ROOT MIRROR CACHE: makes the lab image's Debian bookworm root filesystem in ROOT.
# Runs on the build machine as root; lab.EnsureImage calls it and imports ROOT into Docker.
# debootstrap installs with policy-rc.d and a fake start-stop-daemon, so no daemon (sshd,
# mysqld) is started inside the chroot.
set -euo pipefail
root=$1 mirror=$2 cache=$3
here=$(cd "$(dirname "$0")" && pwd)
packages=$(grep -v '^#' "$here/packages" | paste -sd, -)

mkdir -p "$cache"
debootstrap --variant=minbase --include="$packages" --cache-dir="$cache" bookworm "$root" "$mirror"

cp -a "$here/rootfs/." "$root/"
cp "$here/setup.sh" "$root/tmp/kupgrade-lab-setup.sh"
chroot "$root" /bin/bash /tmp/kupgrade-lab-setup.sh
rm -f "$root/tmp/kupgrade-lab-setup.sh"
