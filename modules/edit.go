package modules

import (
	"context"
	"fmt"
)

// lineinfile, blockinfile and replace: the file is read over the connection in one command,
// edited here (textedit.go, textblock.go: Ansible's logic, byte for byte) and written back in one
// command only when it changed; a second run reads, finds nothing to do and reports ok.

// optStr is an optional string argument: nil when not given.
func optStr(args map[string]any, key string) *string {
	if v, ok := args[key]; !ok || v == nil {
		return nil
	}
	s := ArgStr(args, key)
	return &s
}

// argStrOr is a string argument, def when not given.
func argStrOr(args map[string]any, key, def string) string {
	if p := optStr(args, key); p != nil {
		return *p
	}
	return def
}

// editTarget reads the file an edit module works on and answers the cases every one of them
// answers alike: a directory fails (rc 256); a missing file fails (rc 257) unless mayCreate.
func editTarget(ctx context.Context, m *Task, path, missingMsg string, mayCreate bool) (remoteText, map[string]any, error) {
	rt, fail, err := readRemote(ctx, m, path)
	if err != nil || fail != nil {
		return rt, fail, err
	}
	switch {
	case rt.kind == "dir":
		r := Failure(fmt.Sprintf("Path %s is a directory !", path))
		r["rc"] = 256
		return rt, r, nil
	case rt.kind == "absent" && !mayCreate:
		r := Failure(fmt.Sprintf(missingMsg, path))
		r["rc"] = 257
		return rt, r, nil
	}
	return rt, nil, nil
}

// editCommon are the arguments every edit module shares.
type editCommon struct {
	path     string
	backup   bool
	validate string
	attrs    attrArgs
}

func readEditCommon(args map[string]any) (editCommon, error) {
	attrs, err := readAttrArgs(args)
	return editCommon{path: ArgStr(args, "path"), backup: argBool(args, "backup", false),
		validate: ArgStr(args, "validate"), attrs: attrs}, err
}

// finishEdit writes res when it changed and sets the attributes; it returns Ansible's message
// and changed, and the backup's name.
func finishEdit(ctx context.Context, m *Task, c editCommon, res editResult) (string, bool, string, map[string]any, error) {
	w := writeOpts{backup: c.backup, validate: c.validate, attrs: c.attrs}
	if res.changed {
		w.data = res.content
		if w.data == nil {
			w.data = []byte{}
		}
	}
	bk, attrs, fail, err := writeRemote(ctx, m, c.path, w)
	if err != nil || fail != nil {
		return "", false, "", fail, err
	}
	msg, changed := attrMsg(res.msg, res.changed, attrs)
	return msg, changed, bk, nil, nil
}

func modLineInFile(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	c, err := readEditCommon(args)
	if err != nil {
		return Failure("lineinfile: " + err.Error()), nil
	}
	o := lineOpts{regexp: optStr(args, "regexp"), search: optStr(args, "search_string"), line: optStr(args, "line"),
		insertAfter: optStr(args, "insertafter"), insertBefore: optStr(args, "insertbefore"),
		backrefs: argBool(args, "backrefs", false), firstMatch: argBool(args, "firstmatch", false),
		drop: ArgStr(args, "state") == "absent"}
	switch {
	case o.drop && o.regexp == nil && o.search == nil && o.line == nil:
		return Failure("one of line, search_string, or regexp is required with state=absent"), nil
	case o.drop:
	case o.backrefs && o.regexp == nil:
		return Failure("regexp is required with backrefs=true"), nil
	case o.line == nil:
		return Failure("line is required with state=present"), nil
	case o.insertAfter == nil && o.insertBefore == nil:
		eof := "EOF"
		o.insertAfter = &eof
	}
	rt, fail, err := editTarget(ctx, m, c.path, "Destination %s does not exist !", o.drop || argBool(args, "create", false))
	if err != nil || fail != nil {
		return fail, err
	}
	if o.drop && rt.kind == "absent" {
		return map[string]any{"changed": false, "msg": "file not present"}, nil
	}
	res, err := lineInFile(rt.data, o)
	if err != nil {
		return Failure("lineinfile: " + err.Error()), nil
	}
	if m.Check && rt.kind == "absent" {
		return withEditDiff(m, map[string]any{"changed": res.changed, "msg": res.msg, "backup": ""}, c.path, rt, res, true), nil
	}
	msg, changed, bk, fail, err := finishEdit(ctx, m, c, res)
	if err != nil || fail != nil {
		return fail, err
	}
	out := map[string]any{"changed": changed, "msg": msg, "backup": bk}
	if o.drop {
		out["found"] = res.found
	}
	return withEditDiff(m, out, c.path, rt, res, false), nil
}

func modBlockInFile(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	c, err := readEditCommon(args)
	if err != nil {
		return Failure("blockinfile: " + err.Error()), nil
	}
	o := blockOpts{block: ArgStr(args, "block"), marker: argStrOr(args, "marker", "# {mark} ANSIBLE MANAGED BLOCK"),
		markerBegin: argStrOr(args, "marker_begin", "BEGIN"), markerEnd: argStrOr(args, "marker_end", "END"),
		insertAfter: optStr(args, "insertafter"), insertBefore: optStr(args, "insertbefore"),
		present: ArgStr(args, "state") != "absent"}
	rt, fail, err := editTarget(ctx, m, c.path, "Path %s does not exist !", argBool(args, "create", false))
	if err != nil || fail != nil {
		return fail, err
	}
	exists := rt.kind == "file"
	if !o.present && !exists {
		return map[string]any{"changed": false, "msg": fmt.Sprintf("File %s not present", c.path)}, nil
	}
	res, err := blockInFile(rt.data, exists, o)
	if err != nil {
		return Failure("blockinfile: " + err.Error()), nil
	}
	if m.Check && !exists {
		return withEditDiff(m, map[string]any{"changed": res.changed, "msg": res.msg}, c.path, rt, res, true), nil
	}
	msg, changed, bk, fail, err := finishEdit(ctx, m, c, res)
	if err != nil || fail != nil {
		return fail, err
	}
	out := map[string]any{"changed": changed, "msg": msg}
	if bk != "" {
		out["backup_file"] = bk
	}
	return withEditDiff(m, out, c.path, rt, res, false), nil
}

func modReplace(ctx context.Context, m *Task, args map[string]any) (map[string]any, error) {
	c, err := readEditCommon(args)
	if err != nil {
		return Failure("replace: " + err.Error()), nil
	}
	rt, fail, err := editTarget(ctx, m, c.path, "Path %s does not exist !", false)
	if err != nil || fail != nil {
		return fail, err
	}
	res, err := replaceIn(rt.data, replaceOpts{regexp: ArgStr(args, "regexp"), replace: ArgStr(args, "replace"),
		after: ArgStr(args, "after"), before: ArgStr(args, "before")})
	if err != nil {
		return Failure("replace: " + err.Error()), nil
	}
	if !res.changed && res.msg != "" { // before/after did not match: Ansible stops here
		return map[string]any{"changed": false, "msg": res.msg, "rc": 0}, nil
	}
	msg, changed, bk, fail, err := finishEdit(ctx, m, c, res)
	if err != nil || fail != nil {
		return fail, err
	}
	out := map[string]any{"changed": changed, "msg": msg, "rc": 0}
	if bk != "" {
		out["backup_file"] = bk
	}
	if m.Diff && res.changed { // replace's diff is of the content alone, headed by the path
		out["diff"] = map[string]any{"before": string(rt.data), "after": string(res.content),
			"before_header": c.path, "after_header": c.path}
	}
	return out, nil
}
