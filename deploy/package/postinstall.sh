#!/bin/sh
# After the kupgrade package is installed (.deb and .rpm alike): the kupgrade system user that
# runs kupgrade-watch.service, and the status page's token when there is none yet.
set -e
if ! getent group kupgrade >/dev/null; then
    groupadd --system kupgrade
fi
if ! getent passwd kupgrade >/dev/null; then
    useradd --system --gid kupgrade --home-dir /var/lib/kupgrade --no-create-home \
        --shell /usr/sbin/nologin --comment "kupgrade watch" kupgrade
fi
token=/etc/kupgrade/watch.token
if [ ! -e "$token" ]; then
    (umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$token")
    chown root:kupgrade "$token"
    chmod 0640 "$token"
fi
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload || true
fi
