# lib.sh: what the lab's simulated tools share (sourced by kubeadm, kubectl, kubelet and the
# kupgrade-lab-* scripts). Paths mirror a kubeadm node; lab bookkeeping lives under
# /var/lib/kupgrade-lab (per node) and /var/lib/kupgrade-lab/shared (a Docker volume mounted on
# every node of one lab, standing in for the cluster's API objects).

LAB=/var/lib/kupgrade-lab
SHARED=$LAB/shared
TEMPLATES=/usr/share/kupgrade-lab/templates
MANIFESTS=/etc/kubernetes/manifests
KTMP=/etc/kubernetes/tmp
KUBELET_CONFIG=/var/lib/kubelet/config.yaml
FAULT_FILE=/etc/kupgrade-lab/fault
COMPONENTS="kube-apiserver kube-controller-manager kube-scheduler"
# REGISTRY_MISSING lists, one a line, the versions whose images the lab's simulated registry
# does not serve (kubeadm config images pull fails on them); tests write it.
REGISTRY_MISSING=$SHARED/registry-missing

# node.env holds NODE_NAME, NODE_ROLE and NODE_ADDRESS, fixed when the node first started.
[ -r /etc/kupgrade-lab/node.env ] && . /etc/kupgrade-lab/node.env

valid_version() { [[ $1 =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; }

# version_minor v1.29.4 -> 29
version_minor() { local v=${1#v}; v=${v#*.}; echo "${v%%.*}"; }

# version_cmp A B prints -1, 0 or 1.
version_cmp() {
    local a b i
    IFS=. read -ra a <<< "${1#v}"
    IFS=. read -ra b <<< "${2#v}"
    for i in 0 1 2; do
        if ((a[i] < b[i])); then echo -1; return; fi
        if ((a[i] > b[i])); then echo 1; return; fi
    done
    echo 0
}

# render TEMPLATE VERSION: the template with this node's values filled in.
render() {
    sed -e "s/@VERSION@/$2/g" -e "s/@ADDRESS@/${NODE_ADDRESS:-127.0.0.1}/g" \
        -e "s/@NODE_NAME@/${NODE_NAME:-node}/g" "$TEMPLATES/$1"
}

# write_atomic FILE: stdin into FILE through a temporary name, so readers never see half a file.
write_atomic() {
    local tmp
    tmp=$(mktemp "$1.XXXXXX") && cat > "$tmp" && chmod 644 "$tmp" && mv -f "$tmp" "$1"
}

# temp_dir PREFIX: creates $KTMP/PREFIX<random decimal> and prints it, as kubeadm's
# os.MkdirTemp does for kubeadm-upgraded-manifests and kubeadm-kubelet-config (the real kubeadm
# names the kubelet config backup that way, not with a time stamp).
temp_dir() {
    local dir
    mkdir -p "$KTMP"
    until dir=$KTMP/$1$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') && mkdir "$dir" 2>/dev/null; do :; done
    echo "$dir"
}

# timestamp_dir PREFIX: creates $KTMP/PREFIX-<time> (as kubeadm names it) and prints it; a second
# run within the same second gets a numbered suffix instead of failing.
timestamp_dir() {
    local base dir n=1
    base=$KTMP/$1-$(date +%Y-%m-%d-%H-%M-%S)
    dir=$base
    mkdir -p "$KTMP"
    until mkdir "$dir" 2>/dev/null; do dir=$base-$n; n=$((n + 1)); done
    echo "$dir"
}

# lay_pki: what kubeadm init leaves on a controller and the health checks read as root
# (health.ClusterScript, HostScript): the certificates under /etc/kubernetes/pki (one
# self-signed certificate, a year long, under kubeadm's names) and admin.conf, the kubeconfig
# kubectl is given, with that certificate embedded as its client's.
lay_pki() {
    local pki=/etc/kubernetes/pki f data
    mkdir -p "$pki/etcd"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 -subj /CN=kupgrade-lab \
        -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
    for f in apiserver.crt apiserver-kubelet-client.crt front-proxy-ca.crt etcd/ca.crt etcd/server.crt etcd/healthcheck-client.crt; do
        cp "$pki/ca.crt" "$pki/$f"
    done
    data=$(base64 -w0 "$pki/ca.crt")
    cat > /etc/kubernetes/admin.conf <<CONF
apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: $data
    server: https://$(hostname):6443
  name: kubernetes
users:
- name: kubernetes-admin
  user:
    client-certificate-data: $data
contexts:
- context: {cluster: kubernetes, user: kubernetes-admin}
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
CONF
    chmod 600 /etc/kubernetes/admin.conf
}

# publish_pods: this node's static pods, as its kubelet reports them to the API server (the
# image tag of each manifest, one file per component on the shared volume); kubectl get pods
# reads them. Called when manifests change (kubeadm, the node's first start) and when the
# kubelet restarts.
publish_pods() {
    local c dir=$SHARED/nodes/$NODE_NAME/pods
    mkdir -p "$dir"
    for c in $COMPONENTS; do
        if [ -f "$MANIFESTS/$c.yaml" ]; then
            sed -n 's/^ *image: .*:\(v[0-9.]*\)$/\1/p' "$MANIFESTS/$c.yaml" | head -1 | write_atomic "$dir/$c"
        else
            rm -f "$dir/$c"
        fi
    done
}

lab_log() { { echo "$(date +%FT%T) $*" >> /var/log/kupgrade-lab/events.log; } 2>/dev/null || true; }

# session_sshd_pids: the sshd processes serving the SSH session this process runs under
# (nearest first), found by walking the parent chain; empty outside SSH. The listening sshd
# ("sshd: /usr/sbin/sshd ... [listener]") is never one of them.
session_sshd_pids() {
    local pid=$$ stat rest cmd
    while [ "$pid" -gt 1 ] 2>/dev/null; do
        cmd=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null) || return 0
        case $cmd in *"[listener]"*) ;; "sshd: "*) echo "$pid" ;; esac
        stat=$(< "/proc/$pid/stat") || return 0
        rest=${stat##*) }
        set -- $rest
        pid=$2
    done
}
