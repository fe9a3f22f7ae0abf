package modules

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"strings"
)

// What the modules that change files return under diff (Task.Diff), as Ansible's do: a "diff"
// of the content (before and after, with their headers) or of the path's state and mode (two
// mappings), which the runner prints as Ansible's default callback does.

// maxDiffSize is Ansible's MAX_FILE_SIZE_FOR_DIFF: a larger side is not compared.
const maxDiffSize = 104448

// contentDiff is Ansible's diff of a file's text: a side that is binary (holds a NUL byte) or
// larger than maxDiffSize is replaced by its marker, as Ansible's action plugins do. A before
// header of "" means there was no file (the diff then starts from nothing).
func contentDiff(before []byte, beforeHeader string, after []byte, afterHeader string) map[string]any {
	d := map[string]any{}
	switch {
	case beforeHeader == "":
		d["before"] = ""
	case bytes.IndexByte(before, 0) >= 0:
		d["dst_binary"] = 1
	case len(before) > maxDiffSize:
		d["dst_larger"] = maxDiffSize
	default:
		d["before"], d["before_header"] = string(before), beforeHeader
	}
	switch {
	case len(after) > maxDiffSize:
		d["src_larger"] = maxDiffSize
	case bytes.IndexByte(after, 0) >= 0:
		d["src_binary"] = 1
	default:
		d["after"], d["after_header"] = string(after), afterHeader
	}
	return d
}

// editDiff is the diff of lineinfile and blockinfile: the content, then the file's attributes
// (headers only: kupgrade does not report the old mode there), each headed "PATH (content)" and
// "PATH (file attributes)" as Ansible's modules head them.
func editDiff(path string, before, after []byte) []any {
	h := path + " (content)"
	a := path + " (file attributes)"
	return []any{
		map[string]any{"before": string(before), "after": string(after), "before_header": h, "after_header": h},
		map[string]any{"before_header": a, "after_header": a},
	}
}

// stateDiff is the file module's diff: the path, and each of its attributes that changes (state,
// mode, src) with its old and new value.
func stateDiff(path string, was, now map[string]any) map[string]any {
	before, after := map[string]any{"path": path}, map[string]any{"path": path}
	for k, v := range now {
		if w, ok := was[k]; ok && w != v {
			before[k], after[k] = w, v
		}
	}
	return map[string]any{"before": before, "after": after}
}

// octalMode is a mode as stat -c %a prints it in Ansible's diff form ('0%03o'): 644 is 0644.
func octalMode(a string) string {
	for len(a) < 3 {
		a = "0" + a
	}
	return "0" + a
}

// oldContent reads the file a copy or template replaces, for its diff: nil when it is not a
// readable file (the diff then has no before).
func oldContent(ctx context.Context, m *Task, path string) ([]byte, error) {
	rt, fail, err := readRemote(ctx, m, path)
	if err != nil || fail != nil || rt.kind != "file" {
		return nil, err
	}
	return rt.data, nil
}

// afterPath is the after header of copy and template: the local file it came from, absolute.
func afterPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// copyDiff sets the diff of copy and template as Ansible's copy action makes it: the old and
// new content when it differs (a list of one; the after header is the source file, or dest for
// content), else the file module's diff of the path and its mode.
func copyDiff(ctx context.Context, m *Task, res map[string]any, rf remoteFile, data []byte, from string, mode fs.FileMode, fixMode bool) error {
	if rf.exists && rf.sha == res["checksum"] {
		now := map[string]any{}
		if fixMode {
			now["mode"] = octalMode(modeText(mode))
		}
		res["diff"] = stateDiff(rf.path, map[string]any{"mode": octalMode(rf.mode)}, now)
		return nil
	}
	if from == "" {
		from = rf.path
	}
	var before []byte
	header := ""
	if rf.exists {
		old, err := oldContent(ctx, m, rf.path)
		if err != nil {
			return err
		}
		before, header = old, rf.path
	}
	res["diff"] = []any{contentDiff(before, header, data, from)}
	return nil
}

// withEditDiff adds lineinfile's and blockinfile's diff to out under diff mode: the content
// alone when check mode stopped before a missing file (as Ansible returns it), else with the
// attributes' headers.
func withEditDiff(m *Task, out map[string]any, path string, rt remoteText, res editResult, alone bool) map[string]any {
	if !m.Diff {
		return out
	}
	after := rt.data
	if res.changed {
		after = res.content
	}
	d := editDiff(path, rt.data, after)
	out["diff"] = d
	if alone {
		out["diff"] = d[0]
	}
	return out
}

// diffPrevState and diffPrevMode print, for the file module's diff, the kind the path was (and
// a link's target) before the state's script, and its mode after it, before the attributes.
const (
	diffPrevState = `echo "prev=$ps"; if [ $ps = link ]; then echo "prevsrc=$(readlink -- "$p")"; fi
`
	diffPrevMode = `if [ -e "$p" ]; then echo "mode=$(stat -c %a -- "$p")"; fi
`
)

// fileDiff is the file module's diff from its script's output: the state when it changes (and a
// link's target), and an octal mode that differs from the one the path had.
func fileDiff(out, path, state, src string, a attrArgs) map[string]any {
	was, now := map[string]any{}, map[string]any{"state": state}
	for l := range strings.SplitSeq(out, "\n") {
		k, v, _ := strings.Cut(l, "=")
		switch k {
		case "prev":
			was["state"] = v
		case "prevsrc":
			was["src"] = v
		case "mode":
			was["mode"] = octalMode(v)
		}
	}
	if state == "link" {
		now["src"] = src
	}
	if a.mode != "" {
		now["mode"] = octalMode(a.mode)
	}
	return stateDiff(path, was, now)
}
