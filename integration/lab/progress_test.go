//go:build integration

package lab

import (
	"regexp"
	"strings"
	"testing"
)

// debootstrap's output, as a first image build writes it, comes out as its phases and a count
// of packages every 25: a person sees the build move without its hundreds of lines.
func TestBuildProgress(t *testing.T) {
	var in strings.Builder
	in.WriteString("I: Retrieving InRelease \nI: Checking Release signature\nI: Resolving dependencies of required packages...\n")
	for i := range 60 {
		in.WriteString("I: Retrieving pkg" + string(rune('a'+i%26)) + " 1.0-" + string(rune('0'+i%10)) + "\n")
	}
	in.WriteString("W: a warning\nI: Extracting adduser...\nI: Unpacking required packages...\n")
	for range 30 {
		in.WriteString("I: Unpacking libc6:amd64...\n")
	}
	in.WriteString("I: Configuring the base system...\nI: Configuring openssh-server...\nI: Base system installed successfully.\n")
	var out strings.Builder
	p := newBuildProgress(&out)
	text := in.String()
	for len(text) > 0 { // in pieces that split lines, as a pipe delivers them
		n := min(7, len(text))
		p.Write([]byte(text[:n]))
		text = text[n:]
	}
	got := regexp.MustCompile(`\[\d+s\] `).ReplaceAllString(out.String(), "")
	want := "lab: Resolving dependencies of required packages...\n" +
		"lab:   retrieving: 25 packages\nlab:   retrieving: 50 packages\n" +
		"lab: Unpacking required packages...\n" +
		"lab:   unpacking: 25 packages\n" +
		"lab: Configuring the base system...\n" +
		"lab: Base system installed successfully.\n"
	if got != want {
		t.Errorf("progress:\n%s\nwant:\n%s", got, want)
	}
}
