package playbooks

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kupgrade/kupgrade/jinja"
)

// ConvertArgs does what Ansible's argument spec does to a module's arguments when the task runs
// (after templating): it converts each value to its argument's type by Python's rules and checks
// choices, required and mutually exclusive arguments. It returns the converted arguments (args
// itself is left alone), or Ansible's message for the task's failure. A module kupgrade has no
// table for (a Python module) is returned as it is: the module checks its own arguments.
func ConvertArgs(module string, args map[string]any) (map[string]any, string) {
	m := modules[module]
	if m == nil || actionOnly[module] {
		return args, ""
	}
	out := maps.Clone(args)
	if c, ok := out["content"].(map[string]any); ok && module == "copy" {
		out["content"] = pyJSON(c) // Ansible's copy action writes a structure as JSON
	} else if c, ok := out["content"].([]any); ok && module == "copy" {
		out["content"] = pyJSON(c)
	}
	for _, k := range slices.Sorted(maps.Keys(out)) {
		v, err := convertArg(out[k], m.args[k])
		if err != "" {
			return nil, fmt.Sprintf("argument '%s' is of type %s and we were unable to convert to %s: %s", k, pyType(out[k]), typeName[m.args[k]], err)
		}
		out[k] = v
		if s, ok := v.(string); ok && m.choices[k] != nil && !slices.Contains(m.choices[k], s) {
			return nil, fmt.Sprintf("value of %s must be one of: %s, got: %s", k, strings.Join(m.choices[k], ", "), s)
		}
	}
	return out, m.presence(out)
}

// actionOnly are the modules Ansible runs as action plugins alone, which read their arguments
// themselves (assert's that stays one condition, however many commas it has).
var actionOnly = map[string]bool{"assert": true, "debug": true, "fail": true, "set_fact": true, "group_by": true,
	"pause": true, "kubelet_config": true}

// pyJSON is Python's json.dumps of v, as Ansible writes it.
func pyJSON(v any) string {
	s, err := jinja.RenderString("{{ v | to_json }}", map[string]any{"v": v})
	if err != nil {
		return jinja.Str(v)
	}
	return s
}

// presence checks the required and mutually exclusive arguments, in Ansible's words.
func (m *module) presence(args map[string]any) string {
	has := func(k string) bool { return args[k] != nil }
	for _, group := range m.exclusive {
		if set := slices.DeleteFunc(slices.Clone(group), func(k string) bool { return !has(k) }); len(set) > 1 {
			return "parameters are mutually exclusive: " + strings.Join(group, "|")
		}
	}
	var missing []string
	for _, group := range m.oneOf {
		switch {
		case slices.ContainsFunc(group, has):
		case len(group) == 1:
			missing = append(missing, group[0])
		default:
			return "one of the following is required: " + strings.Join(group, ", ")
		}
	}
	if len(missing) > 0 {
		return "missing required arguments: " + strings.Join(missing, ", ")
	}
	return ""
}

var typeName = map[argType]string{tStr: "str", tBool: "bool", tInt: "int", tList: "list", tAny: "raw"}

// convertArg converts one value as Ansible's check_type_* functions do; None stays None.
func convertArg(v any, t argType) (any, string) {
	if v == nil {
		return nil, ""
	}
	switch t {
	case tStr:
		return toStr(v), ""
	case tBool:
		return toBool(v)
	case tInt:
		return toInt(v)
	case tList:
		return toList(v)
	}
	return v, ""
}

// toStr is Python's str() of a mapping, list, boolean or float, as Ansible converts a string
// argument given another type. Whole numbers stay numbers: their str() is the same digits, and
// a file mode written as a number keeps its meaning.
func toStr(v any) any {
	switch v.(type) {
	case map[string]any, []any, bool, float64:
		return jinja.Str(v)
	}
	return v
}

func toBool(v any) (any, string) {
	switch x := v.(type) {
	case bool:
		return x, ""
	case string, int, float64:
		switch strings.ToLower(jinja.Str(x)) {
		case "y", "yes", "on", "1", "true", "t", "1.0":
			return true, ""
		case "n", "no", "off", "0", "false", "f", "0.0":
			return false, ""
		}
	}
	return nil, fmt.Sprintf("The value %s is not a valid boolean.  Valid booleans include: 'y', 'yes', 'on', '1', 'true', 't', 'n', 'no', 'off', '0', 'false', 'f'", pyRepr(v))
}

func toInt(v any) (any, string) {
	switch x := v.(type) {
	case int:
		return x, ""
	case bool:
		return map[bool]int{false: 0, true: 1}[x], ""
	case float64:
		if x == math.Trunc(x) {
			return int(x), ""
		}
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
			return n, ""
		}
	}
	return nil, fmt.Sprintf("%s cannot be converted to an int", pyType(v))
}

func toList(v any) (any, string) {
	switch x := v.(type) {
	case []any:
		return x, ""
	case string:
		var out []any
		for _, s := range strings.Split(x, ",") {
			out = append(out, s)
		}
		return out, ""
	case int, float64:
		return []any{jinja.Str(x)}, ""
	}
	return nil, fmt.Sprintf("%s cannot be converted to a list", pyType(v))
}

// pyType names a value's Python class as Ansible's messages do.
func pyType(v any) string {
	name := "NoneType"
	switch v.(type) {
	case string:
		name = "str"
	case bool:
		name = "bool"
	case int:
		name = "int"
	case float64:
		name = "float"
	case map[string]any:
		name = "dict"
	case []any:
		name = "list"
	}
	return "<class '" + name + "'>"
}

// pyRepr is Python's repr() of a scalar as Ansible quotes it in a message.
func pyRepr(v any) string {
	if s, ok := v.(string); ok {
		return "'" + s + "'"
	}
	return jinja.Str(v)
}
