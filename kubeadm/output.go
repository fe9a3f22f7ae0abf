package kubeadm

import (
	"regexp"
	"strings"
)

var kubeletVersionRE = regexp.MustCompile(`Kubernetes (v\d+\.\d+\.\d+)`)

// KubeletVersion reads what `kubelet --version` prints ("Kubernetes v1.30.2"): the version, or
// false when the output holds none (no kubelet installed, another program).
func KubeletVersion(out string) (string, bool) {
	m := kubeletVersionRE.FindStringSubmatch(out)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// stackTraceHint starts the line kubeadm ends every failure with; it says nothing about the cause.
const stackTraceHint = "To see the stack trace"

// FailureLine picks the line of a failed command's output that says why: among the last 20
// lines, the last one that mentions an error or a failure (kubeadm's "error execution phase
// ...", "[ERROR ...]"), else the last line; kubeadm's closing hint about --v=5 is never picked.
// It is "" for empty output.
func FailureLine(out string) string {
	all := strings.Split(strings.TrimRight(out, "\n"), "\n")
	all = all[max(0, len(all)-20):]
	var lines []string
	for _, l := range all {
		if !strings.HasPrefix(strings.TrimSpace(l), stackTraceHint) {
			lines = append(lines, l)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.ToLower(lines[i])
		if strings.Contains(l, "error") || strings.Contains(l, "fail") || strings.Contains(l, "fatal") {
			return strings.TrimSpace(lines[i])
		}
	}
	if len(lines) > 0 {
		return strings.TrimSpace(lines[len(lines)-1])
	}
	return ""
}

var shortVersionRE = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)

// shortVersion reads what `kubeadm version -o short` prints ("v1.30.2").
func shortVersion(out string) (string, bool) {
	v := strings.TrimSpace(out)
	return v, shortVersionRE.MatchString(v)
}
