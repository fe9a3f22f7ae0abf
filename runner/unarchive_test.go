package runner_test

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

func writeTgz(t *testing.T, p string, files map[string]string) {
	t.Helper()
	f, _ := os.Create(p)
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "app/", Typeflag: tar.TypeDir, Mode: 0o755})
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))})
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	f.Close()
}

func TestUnarchive(t *testing.T) {
	pbDir, dest, dest2 := t.TempDir(), t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(pbDir, "files"), 0o755)
	writeTgz(t, filepath.Join(pbDir, "files", "app.tgz"), map[string]string{"app/a.txt": "A\n", "app/b.txt": "B\n"})
	zp := filepath.Join(dest2, "..", filepath.Base(dest2)+".zip")
	zf, _ := os.Create(zp)
	zw := zip.NewWriter(zf)
	w, _ := zw.Create("z.txt")
	w.Write([]byte("Z\n"))
	zw.Close()
	zf.Close()
	t.Cleanup(func() { os.Remove(zp) })
	dest3 := t.TempDir()
	pb := `- hosts: all
  gather_facts: false
  tasks:
    - {name: would unpack, unarchive: {src: ` + filepath.Join(pbDir, "files", "app.tgz") + `, dest: ` + dest3 + `}, check_mode: true}
    - {name: tgz, unarchive: {src: ` + filepath.Join(pbDir, "files", "app.tgz") + `, dest: ` + dest + `, list_files: true}, register: tgz}
    - {name: tgz again, unarchive: {src: ` + filepath.Join(pbDir, "files", "app.tgz") + `, dest: ` + dest + `}}
    - {name: zip on the host, unarchive: {src: ` + zp + `, dest: ` + dest2 + `, remote_src: true}, register: zip}
    - {name: zip again, unarchive: {src: ` + zp + `, dest: ` + dest2 + `, copy: false}}
    - {name: creates, unarchive: {src: ` + zp + `, dest: ` + dest2 + `, remote_src: true, creates: ` + dest2 + `/z.txt}}
    - {name: no dest, unarchive: {src: ` + zp + `, dest: ` + dest2 + `/nope, remote_src: true}, ignore_errors: true, register: nodest}
`
	os.WriteFile(filepath.Join(dest, "app-extra"), nil, 0o644)
	recap, _, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", pb, runner.PlayOptions{})
	want := "task_changed would unpack\ntask_changed tgz\ntask_ok tgz again\ntask_changed zip on the host\ntask_ok zip again\ntask_skipped creates\ntask_failed no dest"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("results:\n%s\nwant\n%s", got, want)
	}
	for p, body := range map[string]string{filepath.Join(dest, "app", "a.txt"): "A\n", filepath.Join(dest2, "z.txt"): "Z\n"} {
		if b, err := os.ReadFile(p); string(b) != body {
			t.Errorf("%s = %q, %v", p, b, err)
		}
	}
	if entries, _ := os.ReadDir(dest3); len(entries) != 0 {
		t.Errorf("check mode unpacked %d entries", len(entries))
	}
	tgz := reg(t, recap, "h1", "tgz")
	if tgz["handler"] != "TgzArchive" || len(tgz["files"].([]any)) != 3 {
		t.Errorf("tgz = %v", tgz)
	}
	if reg(t, recap, "h1", "zip")["handler"] != "ZipArchive" {
		t.Error("zip handler")
	}
	if m := reg(t, recap, "h1", "nodest")["msg"]; m != "Destination '"+dest2+"/nope' is not a directory" {
		t.Errorf("no dest: %v", m)
	}
}
