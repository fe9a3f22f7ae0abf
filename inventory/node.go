package inventory

import (
	"fmt"
	"github.com/kupgrade/kupgrade/jinja"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// walkBudget bounds how many YAML nodes one Load may visit. Aliases let a small file name the
// same subtree many times over; without a bound, a few hundred bytes could keep Load busy for
// hours. A real inventory of ten thousand hosts visits well under a tenth of it.
const walkBudget = 1_000_000

// pos is where something was written.
type pos struct {
	file      string
	line, col int
}

func at(file string, n *yaml.Node) pos { return pos{file: file, line: n.Line, col: n.Column} }

func (p pos) errorf(fix, format string, args ...any) *Error {
	return &Error{File: p.file, Line: p.line, Column: p.col, Msg: fmt.Sprintf(format, args...), Fix: fix}
}

// varDef is one variable's value and where it was set, so a bad value can be pointed at.
type varDef struct {
	val any
	at  pos
}

// describe names a node's kind the way a user thinks of it.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "empty"
		case "!!int", "!!float":
			return "a number (" + n.Value + ")"
		case "!!bool":
			return "a boolean (" + n.Value + ")"
		}
		return fmt.Sprintf("the string %q", clip(n.Value))
	}
	return "something else"
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// scalarKey returns a map key as text, or an error when the key is a map or a list.
func scalarKey(file string, k *yaml.Node, what string) (string, error) {
	if k.Kind != yaml.ScalarNode || isNull(k) || k.Value == "" {
		return "", at(file, k).errorf("write a plain name", "%s must be a name, not %s", what, describe(k))
	}
	return k.Value, nil
}

// decodeValue turns a variable's YAML into plain Go values: maps keyed by strings (so that JSON
// can encode them), slices, strings, numbers, booleans and nil.
func decodeValue(file string, n *yaml.Node) (any, error) {
	if err := unvaultValue(file, n); err != nil {
		return nil, err
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, at(file, n).errorf("", "bad value: %s", yamlMessage(err))
	}
	v = normalize(v)
	jinja.OrderYAML(n, v)
	return v, nil
}

func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalize(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = normalize(e)
		}
		return t
	}
	return v
}

// jsonSafe copies v replacing what encoding/json refuses (YAML's .inf and .nan) by their YAML text.
func jsonSafe(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = jsonSafe(e)
		}
		jinja.CopyOrder(m, t)
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = jsonSafe(e)
		}
		return s
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return strconv.FormatFloat(t, 'g', -1, 64)
		}
	}
	return v
}

var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// yamlMessage drops yaml.v3's "yaml: line N:" prefix; the caller gives the place itself.
func yamlMessage(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: unmarshal errors:\n  ")
	return yamlLine.ReplaceAllString(msg, "")
}

// syntaxError places a yaml.v3 syntax error. yaml.v3 reports only the line, so the column is the
// first character on that line that is not a space (or the tab, when a tab is the complaint):
// that is where an editor should put the cursor.
func syntaxError(file string, data []byte, err error) *Error {
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil && m[1] != "" {
		line, _ = strconv.Atoi(m[1])
	}
	msg = yamlMessage(err)
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		line = max(1, min(line, len(lines)))
	}
	text := lines[line-1]
	col := len(text) - len(strings.TrimLeft(text, " ")) + 1
	fix := "check the indentation and the quoting on this line and the one above"
	if strings.Contains(msg, "tab") || strings.HasPrefix(text[col-1:], "\t") {
		if i := strings.IndexByte(text, '\t'); i >= 0 {
			col = i + 1
		}
		fix = "indent with spaces, YAML does not allow tabs"
	}
	return &Error{File: file, Line: line, Column: col, Msg: "invalid YAML: " + msg, Fix: fix}
}
