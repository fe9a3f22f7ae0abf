#!/bin/sh
# Before the kupgrade package is removed (not upgraded: dpkg says "remove", rpm says 0): stop
# the watcher. The database in /var/lib/kupgrade stays.
set -e
case "$1" in
remove | 0)
    if [ -d /run/systemd/system ]; then
        systemctl stop kupgrade-watch.service || true
    fi
    ;;
esac
