// kupgrade-package builds kupgrade's .deb and .rpm and their SHA256SUMS (internal/pkgbuild);
// `make package` runs it on bin/kupgrade.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/kupgrade/kupgrade/internal/pkgbuild"
)

func main() {
	var o pkgbuild.Options
	flag.StringVar(&o.Root, "root", ".", "the repository (for deploy/)")
	flag.StringVar(&o.Bin, "bin", "bin/kupgrade", "the kupgrade binary to package")
	flag.StringVar(&o.Version, "version", "", "git describe --tags --always --dirty")
	flag.StringVar(&o.Commit, "commit", "", "the commit the binary was built from")
	flag.StringVar(&o.Arch, "arch", runtime.GOARCH, "the binary's architecture (Go's name)")
	flag.StringVar(&o.Out, "out", "dist", "folder for the packages and SHA256SUMS")
	flag.Parse()
	if o.Version == "" || o.Commit == "" {
		fmt.Fprintln(os.Stderr, "kupgrade-package: -version and -commit are required (make package gives them)")
		os.Exit(2)
	}
	paths, err := pkgbuild.Build(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kupgrade-package: %v\n", err)
		os.Exit(1)
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			fmt.Printf("%s (%d KiB)\n", p, (st.Size()+1023)/1024)
		}
	}
}
