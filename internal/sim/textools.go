package sim

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// The few text tools the health checks' scripts use (health.HostScript, ClusterScript), as
// far as those scripts use them.

// openssl is `openssl x509 -noout -enddate [-in FILE]` (stdin without -in): notAfter as openssl
// prints it.
func (h *Host) openssl(ctx context.Context, hc interp.HandlerContext, args []string) int {
	if len(args) == 0 || args[0] != "x509" || !slices.Contains(args, "-enddate") {
		fmt.Fprintf(hc.Stderr, "openssl: only x509 -noout -enddate is simulated, not %q\n", args)
		return 1
	}
	data, rc := h.input(ctx, hc, "openssl", optionValue(args, "-in"))
	if rc != 0 {
		return rc
	}
	block, _ := pem.Decode(data)
	if block == nil {
		fmt.Fprintln(hc.Stderr, "unable to load certificate")
		return 1
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		fmt.Fprintf(hc.Stderr, "unable to load certificate: %v\n", err)
		return 1
	}
	fmt.Fprintf(hc.Stdout, "notAfter=%s GMT\n", c.NotAfter.UTC().Format("Jan _2 15:04:05 2006"))
	return 0
}

// base64Decode is `base64 -d` of stdin.
func base64Decode(_ *Host, _ context.Context, hc interp.HandlerContext, args []string) int {
	if len(args) != 1 || args[0] != "-d" {
		fmt.Fprintf(hc.Stderr, "base64: only base64 -d is simulated, not %q\n", args)
		return 1
	}
	data, _ := io.ReadAll(stdin(hc))
	out, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data)))
	if err != nil {
		fmt.Fprintln(hc.Stderr, "base64: invalid input")
		return 1
	}
	hc.Stdout.Write(out) //nolint:errcheck // a pipe
	return 0
}

// input is file's content, or stdin's when file is "".
func (h *Host) input(ctx context.Context, hc interp.HandlerContext, tool, file string) ([]byte, int) {
	if file == "" {
		data, _ := io.ReadAll(stdin(hc))
		return data, 0
	}
	data, ok := h.File(abs(ctx, file))
	if !ok {
		fmt.Fprintf(hc.Stderr, "%s: %s: No such file or directory\n", tool, file)
		return nil, 1
	}
	return []byte(data), 0
}

func optionValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// stdin is the command's standard input (empty when it has none).
func stdin(hc interp.HandlerContext) io.Reader {
	if hc.Stdin == nil {
		return strings.NewReader("")
	}
	return hc.Stdin
}
