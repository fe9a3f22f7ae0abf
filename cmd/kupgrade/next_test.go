package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/watch"
)

// A failed upgrade: `upgrade show` says why (the last failure, the probe's finding) and the
// retry; -o json keeps the finding and the retry in the final error and has `next` in show.
// Once complete, show, plan and the status page all answer `upgrade delete`.
func TestOneNextAndTheLastFailure(t *testing.T) {
	f := startFleet(t, 1, func(int) bool { return true })
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	base := []string{"--db", db, "-i", filepath.Join(f.Inventories, f.Clusters[0].Name+".yml")}
	run := func(args ...string) (int, string, string) { return kupgrade(t, append(base, args...)...) }
	if code, out, errs := run("upgrade", "start", "v1.30.1"); code != 0 {
		t.Fatalf("upgrade start: exit %d\n%s%s", code, out, errs)
	}
	code, errs, _ := run("-o", "json", "upgrade", "run") // one stream: the events, then the error event
	var final struct {
		Finding *struct{ Class string } `json:"finding"`
		Retry   string                  `json:"retry"`
	}
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if code != 1 || json.Unmarshal([]byte(lines[len(lines)-1]), &final) != nil || final.Finding == nil ||
		final.Finding.Class != "kubelet-config-rewritten" || !strings.Contains(final.Retry, "control-plane") {
		t.Fatalf("upgrade run -o json on a late failure: exit %d, the final error lacks the finding or the retry:\n%s", code, errs)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("upgrade run -o json: a line of stdout is not JSON (one stream, the error event included): %q", l)
		}
	}
	_, out, _ := run("upgrade", "show")
	if !strings.Contains(out, "last failure on ") || !strings.Contains(out, "found on the host: kubelet-config-rewritten") ||
		!strings.Contains(out, "next: "+final.Retry) {
		t.Errorf("upgrade show of a failed upgrade does not say why and what next (%s):\n%s", final.Retry, out)
	}
	_, out, _ = run("-o", "json", "upgrade", "show")
	var v upgradeView
	if json.Unmarshal([]byte(out), &v) != nil || v.Next == nil || *v.Next != final.Retry || v.LastFailure == nil || v.LastFailure.Finding == nil {
		t.Fatalf("upgrade show -o json of a failed upgrade lacks next or the last failure:\n%s", out)
	}
	// The finding in its parts, as the error event gives them, not one joined string.
	if fd := v.LastFailure.Finding; fd.Class != "kubelet-config-rewritten" || fd.Summary == "" || strings.HasPrefix(fd.Summary, fd.Class) || fd.Advice == "" {
		t.Errorf("upgrade show -o json: last_failure.finding %+v, want class, summary and advice apart", *fd)
	}
	if code, out, errs := run("upgrade", "run"); code != 0 {
		t.Fatalf("upgrade run again: exit %d\n%s%s", code, out, errs)
	}
	wantDelete(t, run, db, f.Clusters[0].Name)
}

// wantDelete checks that every view of a completed upgrade says `kupgrade upgrade delete`.
func wantDelete(t *testing.T, run func(...string) (int, string, string), db, cluster string) {
	t.Helper()
	_, show, _ := run("-o", "json", "upgrade", "show")
	_, plan, _ := run("-o", "json", "upgrade", "plan", "--recorded")
	var sv, pv struct{ Next *string }
	_ = json.Unmarshal([]byte(show), &sv)
	_ = json.Unmarshal([]byte(plan), &pv)
	d, _ := state.ParseDSN(db)
	st, err := openStore(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	page, err := (&watch.Watcher{Store: st}).Status(context.Background())
	if err != nil || len(page.Clusters) != 1 {
		t.Fatalf("status page: %v %+v", err, page)
	}
	want := "kupgrade upgrade delete"
	if sv.Next == nil || !strings.HasPrefix(*sv.Next, want) || pv.Next == nil || !strings.HasPrefix(*pv.Next, want) ||
		page.Clusters[0].Next != want+" --cluster "+cluster {
		t.Errorf("a completed upgrade: show says %v, plan %v, the status page %q; want all %q\n%s\n%s", sv.Next, pv.Next, page.Clusters[0].Next, want, show, plan)
	}
}
