#!/bin/sh
# After the kupgrade package is removed. The database, snapshots and run logs in
# /var/lib/kupgrade and the kupgrade user stay, even on purge: they are the upgrades' record.
# A purge (.deb) removes the status page's token, which the package made.
set -e
if [ "$1" = purge ]; then
    rm -f /etc/kupgrade/watch.token
fi
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload || true
fi
