package jinja

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// pyYAML writes YAML as Ansible's to_yaml and to_nice_yaml do, through PyYAML's emitter:
// sequences inside mappings not indented, a sequence item's mapping `-` padded to the indent,
// the collections of scalars in flow style when flow ([a, b]), text plain when PyYAML reads it
// back as the same text and single-quoted otherwise (double-quoted when it holds control
// characters), lines folded at spaces past 80 columns.
type pyYAML struct {
	b      strings.Builder
	col    int
	indent int
	flow   bool // default_flow_style=None: collections of scalars in flow style
	sorted bool // sort_keys
}

const yamlWidth = 80

func (y *pyYAML) text(v any) string {
	v = native(v)
	if isCollection(v) {
		y.node(v, 0, false)
	} else {
		s, _ := y.scalar(v, false)
		y.write(s)
	}
	y.write("\n")
	return y.b.String()
}

func isCollection(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

func (y *pyYAML) write(s string) {
	y.b.WriteString(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		y.col = len(s) - i - 1
	} else {
		y.col += len(s)
	}
}

func (y *pyYAML) newline(indent int) { y.write("\n" + strings.Repeat(" ", indent)) }

// inFlow reports whether v is written in flow style: empty, or with flow, holding only scalars.
func (y *pyYAML) inFlow(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) == 0 || y.flow && !slices.ContainsFunc(slices.Collect(maps.Values(x)), isCollection)
	case []any:
		return len(x) == 0 || y.flow && !slices.ContainsFunc(x, isCollection)
	}
	return false
}

func (y *pyYAML) keys(m map[string]any) []string {
	if y.sorted {
		return slices.Sorted(maps.Keys(m))
	}
	return Keys(m)
}

// node writes a collection whose first line starts where the writer stands (inline) or on
// the next line at indent.
func (y *pyYAML) node(v any, indent int, inline bool) {
	if y.inFlow(v) {
		y.writeFlow(v)
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for i, k := range y.keys(x) {
			if i > 0 || !inline {
				y.newlineUnlessStart(indent)
			}
			s, _ := y.scalar(k, false)
			y.write(s + ":")
			y.value(x[k], indent, true)
		}
	case []any:
		for i, e := range x {
			if i > 0 || !inline {
				y.newlineUnlessStart(indent)
			}
			y.write("-")
			y.value(e, indent, false)
		}
	}
}

func (y *pyYAML) newlineUnlessStart(indent int) {
	if y.b.Len() == 0 {
		y.write(strings.Repeat(" ", indent))
		return
	}
	y.newline(indent)
}

// value writes a mapping's value or a sequence's item after its key or dash.
func (y *pyYAML) value(v any, indent int, ofMap bool) {
	switch {
	case !isCollection(v) || y.inFlow(v):
		y.write(" ")
		if isCollection(v) {
			y.writeFlow(v)
			return
		}
		s, _ := y.scalarAt(v, false, indent+y.indent)
		y.write(s)
	case ofMap:
		if _, isList := v.([]any); isList {
			y.node(v, indent, false)
		} else {
			y.node(v, indent+y.indent, false)
		}
	default:
		y.write(strings.Repeat(" ", max(1, y.indent-1)))
		y.node(v, indent+y.indent, true)
	}
}

func (y *pyYAML) writeFlow(v any) {
	switch x := v.(type) {
	case map[string]any:
		y.write("{")
		for i, k := range y.keys(x) {
			if i > 0 {
				y.write(", ")
			}
			ks, _ := y.scalar(k, true)
			vs, _ := y.scalar(x[k], true)
			y.write(ks + ": " + vs)
		}
		y.write("}")
	case []any:
		y.write("[")
		for i, e := range x {
			if i > 0 {
				y.write(", ")
			}
			s, _ := y.scalar(e, true)
			y.write(s)
		}
		y.write("]")
	}
}

func (y *pyYAML) scalar(v any, flow bool) (string, bool) { return y.scalarAt(v, flow, y.indent) }

// scalarAt is v as PyYAML writes it, folded lines continuing at indent, and whether it is plain.
func (y *pyYAML) scalarAt(v any, flow bool, indent int) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "null", true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case float64:
		return yamlFloat(x), true
	case string:
		switch yamlStyle(x, flow) {
		case '\'':
			return y.fold("'"+strings.ReplaceAll(x, "'", "''")+"'", indent, true), false
		case '"':
			return strconv.Quote(x), false
		}
		return y.fold(x, indent, false), true
	}
	return y.scalarAt(Str(v), flow, indent)
}

// fold breaks s at single spaces once the line is past 80 columns, as PyYAML does; in a
// single-quoted scalar each line break is written twice.
func (y *pyYAML) fold(s string, indent int, quoted bool) string {
	var b strings.Builder
	col := y.col + 1
	for i := 0; i < len(s); i++ {
		switch {
		case quoted && s[i] == '\n':
			b.WriteString("\n\n" + strings.Repeat(" ", indent))
			col = indent
		case s[i] == ' ' && col > yamlWidth && i+1 < len(s) && s[i+1] != ' ' && (i == 0 || s[i-1] != ' '):
			b.WriteString("\n" + strings.Repeat(" ", indent))
			col = indent
		default:
			b.WriteByte(s[i])
			col++
		}
	}
	return b.String()
}

func yamlFloat(f float64) string {
	switch s := pyFloat(f); s {
	case "inf":
		return ".inf"
	case "-inf":
		return "-.inf"
	case "nan":
		return ".nan"
	default:
		return s
	}
}

// yamlImplicit is what PyYAML reads as another type than text when plain.
var yamlImplicit = regexp.MustCompile(`^(?:~|null|Null|NULL|yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|` +
	`[-+]?(?:0b[0-1_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+|[1-9][0-9_]*(?::[0-5]?[0-9])+)|` +
	`[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|` +
	`[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}.*)?|<<|=)$`)

// yamlStyle is PyYAML's choice for text: 0 plain, '\” single-quoted, '"' double-quoted.
func yamlStyle(s string, flow bool) byte {
	for _, r := range s {
		if r != '\n' && (r < 0x20 || r == 0x7f || !unicode.IsPrint(r) && r != ' ') {
			return '"'
		}
	}
	if strings.Contains(s, " \n") || strings.Contains(s, "\n ") && !strings.HasSuffix(s, "\n ") {
		return '"'
	}
	if s == "" || yamlImplicit.MatchString(s) || strings.ContainsAny(s, "\n") ||
		s[0] == ' ' || s[len(s)-1] == ' ' || strings.Contains(s, ": ") || strings.Contains(s, " #") ||
		strings.HasSuffix(s, ":") || strings.IndexByte("#,[]{}&*!|>'\"%@`", s[0]) >= 0 ||
		(s[0] == '-' || s[0] == '?' || s[0] == ':') && (len(s) == 1 || s[1] == ' ') ||
		flow && strings.ContainsAny(s, ",?[]{}") {
		return '\''
	}
	return 0
}
