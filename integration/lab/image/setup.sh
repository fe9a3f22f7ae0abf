#!/bin/bash
# setup.sh runs inside the fresh root (chroot) after the recipe files are copied in.
set -euo pipefail

# The operator account: key-only SSH login ("*" is no password, yet not locked) and sudo
# without a password, which is what kupgrade's become expects.
useradd --create-home --shell /bin/bash sysadmin
usermod -p '*' sysadmin
install -d -m 700 -o sysadmin -g sysadmin /home/sysadmin/.ssh
echo 'sysadmin ALL=(ALL:ALL) NOPASSWD: ALL' > /etc/sudoers.d/sysadmin
chmod 440 /etc/sudoers.d/sysadmin

# Light shells: every runner command starts one, so no rc work, no motd, no mail check.
for home in /root /home/sysadmin; do
    printf '# kupgrade lab: kept light on purpose\n' > "$home/.bashrc"
    printf '[ -f ~/.bashrc ] && . ~/.bashrc\n' > "$home/.profile"
done
chown sysadmin:sysadmin /home/sysadmin/.bashrc /home/sysadmin/.profile
sed -i -e '/pam_motd/d' -e '/pam_mail/d' /etc/pam.d/sshd
rm -rf /etc/update-motd.d && : > /etc/motd

# Host keys are made when a container first starts, so no two nodes share one.
rm -f /etc/ssh/ssh_host_*

chmod 755 /usr/bin/kubeadm /usr/bin/kubelet /usr/bin/kubectl /usr/bin/etcdctl /usr/local/sbin/kupgrade-lab-* \
    /usr/local/bin/apt-get /usr/local/bin/apt-mark /usr/local/bin/apt-cache /usr/local/bin/dpkg-query /usr/local/bin/dpkg \
    /usr/local/bin/dnf /usr/local/bin/rpm
install -d /etc/kubernetes/manifests /etc/kubernetes/tmp /var/lib/kubelet /etc/kupgrade-lab \
    /var/lib/kupgrade-lab/shared /var/log/kupgrade-lab

# Smaller image: no package cache, lists or documentation.
apt-get clean
rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* /usr/share/info/* /var/log/*.log
