package lab

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// buildProgress shows an image build as it goes: the build's phase lines (debootstrap's
// "I: Retrieving packages...", "I: Configuring the base system...") pass to w with the time
// since the start, and its lines of one package each are counted, a line every progressEvery
// packages. The whole output still goes to the build log.
type buildProgress struct {
	w     io.Writer
	start time.Time
	buf   []byte
	verb  string
	count int
}

const progressEvery = 25

// packageVerbs begin debootstrap's lines about one package ("I: Retrieving adduser 3.134").
var packageVerbs = []string{"Retrieving", "Validating", "Extracting", "Unpacking", "Configuring"}

func newBuildProgress(w io.Writer) *buildProgress {
	return &buildProgress{w: w, start: time.Now()}
}

func (p *buildProgress) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.line(strings.TrimSpace(string(p.buf[:i])))
		p.buf = p.buf[i+1:]
	}
}

func (p *buildProgress) line(l string) {
	text, ok := strings.CutPrefix(l, "I: ")
	if !ok {
		return
	}
	if verb, ok := onePackage(text); ok {
		p.countPackage(verb)
		return
	}
	if strings.HasSuffix(text, "...") || strings.HasSuffix(text, "successfully.") {
		p.say(text)
	}
}

// onePackage tells a line about one package ("Extracting adduser...", "Retrieving libc6
// 2.36-9") from a phase ("Unpacking required packages...", "Configuring the base system...").
func onePackage(text string) (verb string, ok bool) {
	verb, rest, _ := strings.Cut(strings.TrimSuffix(text, "..."), " ")
	lower := strings.ToLower(rest)
	if !slices.Contains(packageVerbs, verb) || len(strings.Fields(rest)) > 2 ||
		strings.Contains(lower, "packages") || strings.HasPrefix(lower, "the ") {
		return "", false
	}
	return verb, true
}

func (p *buildProgress) countPackage(verb string) {
	if verb != p.verb {
		p.verb, p.count = verb, 0
	}
	p.count++
	if p.count%progressEvery == 0 {
		p.say(fmt.Sprintf("  %s: %d packages", strings.ToLower(verb), p.count))
	}
}

func (p *buildProgress) say(text string) {
	fmt.Fprintf(p.w, "lab: [%s] %s\n", time.Since(p.start).Round(time.Second), text)
}
