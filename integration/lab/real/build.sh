#!/bin/bash
# build.sh OUT VERSION: builds the Kubernetes binaries of one release from the Go module proxy
# into OUT (kubeadm kubelet kubectl kube-apiserver kube-controller-manager kube-scheduler
# kube-proxy), statically (CGO_ENABLED=0) with the version stamped as a release build would.
#
# A scratch module requires k8s.io/kubernetes at VERSION and replaces every staging module
# (k8s.io/api, k8s.io/client-go, ...) by its published v0.Y.Z, the way a vendor of Kubernetes
# does; the staging list is read from that release's own go.mod. The Go build cache makes a second
# run seconds. Fails early, naming the module, when the proxy does not serve one of them.
set -euo pipefail
out=$1 version=$2
work=${KUPGRADE_REAL_WORK:-$HOME/.cache/kupgrade-lab/real/src}/$version
minor=${version#v1.}; minor=${minor%%.*}
staging=v0.${version#v1.}

mkdir -p "$work" "$out"
cd "$work"
gomod=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')
[ -n "$gomod" ] || { echo "build.sh: k8s.io/kubernetes@$version: not served by the module proxy" >&2; exit 1; }
mapfile -t modules < <(sed -n 's#^\t\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\1#p' "$gomod")

# A staging module the proxy does not serve at this version (the samples, at some releases) is
# replaced by an empty local module: the commands built here import none of them, and when one
# does after all the build fails naming the missing package.
rm -rf unserved
{
    echo "module kupgrade.lab/k8s"
    echo
    echo "go 1.22"
    echo
    echo "require k8s.io/kubernetes $version"
    echo
    for m in "${modules[@]}"; do
        if go mod download "$m@$staging" 2>/dev/null; then
            echo "replace $m => $m $staging"
        else
            echo "build.sh: $m@$staging not served; replaced by an empty module" >&2
            mkdir -p "unserved/$m" && echo "module $m" > "unserved/$m/go.mod"
            echo "replace $m => ./unserved/$m"
        fi
    done
} > go.mod
cat > tools.go <<'GO'
//go:build tools

// Package k8s only names the commands to build, so that go mod tidy resolves what they import.
package k8s

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubeadm"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
GO
go mod tidy

pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
ldflags+=" -X k8s.io/client-go/pkg/version.gitVersion=$version"
ldflags+=" -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$out/" \
    k8s.io/kubernetes/cmd/kubeadm k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy
"$out/kubeadm" version -o short
