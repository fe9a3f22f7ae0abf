package playbooks

import (
	"fmt"
	"maps"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// undefined is what _varsoft yields for a missing variable: default() and defined() tell it
// apart from a variable that is set to null.
type undefined struct{}

// functions are the Ansible filters and tests that expr has no builtin for; rewrite maps the
// Jinja spelling onto these names. They are set in init because _var renders nested templates,
// which compiles with these very functions (a cycle Go refuses in a variable initialiser).
var (
	functions       map[string]func(args ...any) (any, error)
	functionOptions []expr.Option
)

func init() {
	functions = map[string]func(args ...any) (any, error){
		"_var":          func(a ...any) (any, error) { return lookup(a, false) },
		"_varsoft":      func(a ...any) (any, error) { return lookup(a, true) },
		"default":       fnDefault,
		"defined":       func(a ...any) (any, error) { return arity(a, 1, func() any { return !isUndef(a[0]) }) },
		"undefined":     func(a ...any) (any, error) { return arity(a, 1, func() any { return isUndef(a[0]) }) },
		"bool":          func(a ...any) (any, error) { return arity(a, 1, func() any { return toBool(a[0]) }) },
		"_isnone":       func(a ...any) (any, error) { return arity(a, 1, func() any { return a[0] == nil }) },
		"_failed":       func(a ...any) (any, error) { return arity(a, 1, func() any { return resultFlag(a[0], "failed") }) },
		"_succeeded":    func(a ...any) (any, error) { return arity(a, 1, func() any { return !resultFlag(a[0], "failed") }) },
		"_changed":      func(a ...any) (any, error) { return arity(a, 1, func() any { return resultFlag(a[0], "changed") }) },
		"_skipped":      func(a ...any) (any, error) { return arity(a, 1, func() any { return resultFlag(a[0], "skipped") }) },
		"_isstring":     func(a ...any) (any, error) { return arity(a, 1, func() any { _, ok := a[0].(string); return ok }) },
		"_isnumber":     func(a ...any) (any, error) { return arity(a, 1, func() any { return isNumber(a[0]) }) },
		"_ismapping":    func(a ...any) (any, error) { return arity(a, 1, func() any { return isKind(a[0], reflect.Map) }) },
		"_list":         func(a ...any) (any, error) { return arity(a, 1, func() any { return a[0] }) },
		"_quote":        func(a ...any) (any, error) { return arity(a, 1, func() any { return shellword.Quote(toString(a[0])) }) },
		"_basename":     func(a ...any) (any, error) { return arity(a, 1, func() any { return path.Base(toString(a[0])) }) },
		"_dirname":      func(a ...any) (any, error) { return arity(a, 1, func() any { return path.Dir(toString(a[0])) }) },
		"_dict2items":   fnDict2Items,
		"_items2dict":   fnItems2Dict,
		"_regexSearch":  fnRegexSearch,
		"_regexReplace": fnRegexReplace,
	}
	for name, fn := range functions {
		functionOptions = append(functionOptions, expr.Function(name, fn))
	}
}

// softFunctions take a possibly undefined first argument.
var softFunctions = map[string]bool{"default": true, "defined": true, "undefined": true}

func arity(a []any, n int, f func() any) (any, error) {
	if len(a) != n {
		return nil, fmt.Errorf("takes %d argument(s), got %d", n, len(a))
	}
	return f(), nil
}

func isUndef(v any) bool { _, ok := v.(undefined); return ok }

// lookup walks a variable path: a[0] is the environment, then the names and indexes.
func lookup(a []any, soft bool) (any, error) {
	env, _ := a[0].(map[string]any)
	var cur any = env
	for i, key := range a[1:] {
		v, ok := index(cur, key)
		if !ok {
			if soft {
				return undefined{}, nil
			}
			return nil, &UndefinedError{Name: pathName(a[1 : i+2])}
		}
		cur = v
	}
	// A top-level variable may itself hold a template (play vars built from other vars), as in
	// Ansible. Registered results are reached through a path and are never re-rendered, so a
	// command's output that happens to contain "{{" stays data.
	if s, ok := cur.(string); ok && len(a) == 2 && strings.Contains(s, "{{") {
		return renderNested(s, env)
	}
	return cur, nil
}

func index(cur, key any) (any, bool) {
	switch c := cur.(type) {
	case map[string]any:
		k, ok := key.(string)
		if !ok {
			return nil, false
		}
		v, ok := c[k]
		return v, ok
	case []any:
		i, ok := key.(int)
		if !ok || i < -len(c) || i >= len(c) {
			return nil, false
		}
		if i < 0 {
			i += len(c)
		}
		return c[i], true
	}
	v := reflect.ValueOf(cur)
	switch v.Kind() {
	case reflect.Map:
		k := reflect.ValueOf(key)
		if !k.Type().ConvertibleTo(v.Type().Key()) {
			return nil, false
		}
		e := v.MapIndex(k.Convert(v.Type().Key()))
		if !e.IsValid() {
			return nil, false
		}
		return e.Interface(), true
	case reflect.Slice, reflect.Array:
		i, ok := key.(int)
		if !ok || i < 0 || i >= v.Len() {
			return nil, false
		}
		return v.Index(i).Interface(), true
	}
	return nil, false
}

func pathName(parts []any) string {
	var b strings.Builder
	for i, p := range parts {
		switch p := p.(type) {
		case string:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		default:
			fmt.Fprintf(&b, "[%v]", p)
		}
	}
	return b.String()
}

// nestedKey carries the nesting depth of lazily rendered variables, so a variable defined in
// terms of itself ends in an error, not a stack overflow. It cannot be spelled as a name.
const nestedKey = "\x00depth"

func renderNested(s string, env map[string]any) (any, error) {
	depth, _ := env[nestedKey].(int)
	if depth >= 10 {
		return nil, fmt.Errorf("variables nested more than 10 deep (a variable refers to itself?)")
	}
	inner := maps.Clone(env)
	inner[nestedKey] = depth + 1
	return Render(s, inner)
}

// fnDefault is Ansible's default(value, fallback[, also_if_false]).
func fnDefault(a ...any) (any, error) {
	if len(a) < 1 || len(a) > 3 {
		return nil, fmt.Errorf("default takes 1 to 3 arguments, got %d", len(a))
	}
	var fallback any = ""
	if len(a) >= 2 {
		fallback = a[1]
	}
	if isUndef(a[0]) || a[0] == nil {
		return fallback, nil
	}
	if len(a) == 3 && toBool(a[2]) && !truthy(a[0]) {
		return fallback, nil
	}
	return a[0], nil
}

// toBool is Ansible's bool filter.
func toBool(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "yes", "on", "1", "true", "y", "t":
			return true
		}
		return false
	case int:
		return v == 1
	case float64:
		return v == 1
	}
	return false
}

// truthy is Python's truth value, which Jinja conditions use.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil, undefined:
		return false
	case bool:
		return v
	case string:
		return v != ""
	}
	if isNumber(v) {
		f, _ := strconv.ParseFloat(fmt.Sprint(v), 64)
		return f != 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Array:
		return rv.Len() > 0
	}
	return true
}

func isNumber(v any) bool {
	switch v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return true
	}
	return false
}

func isKind(v any, k reflect.Kind) bool { return v != nil && reflect.ValueOf(v).Kind() == k }

func resultFlag(v any, key string) bool {
	m, ok := v.(map[string]any)
	return ok && truthy(m[key])
}

func fnRegexSearch(a ...any) (any, error) {
	if len(a) != 2 {
		return nil, fmt.Errorf("regex_search takes a pattern, got %d arguments", len(a)-1)
	}
	re, err := regexp.Compile(toString(a[1]))
	if err != nil {
		return nil, fmt.Errorf("regex_search: %w", err)
	}
	m := re.FindString(toString(a[0]))
	if m == "" && !re.MatchString(toString(a[0])) {
		return nil, nil
	}
	return m, nil
}

var pythonGroup = regexp.MustCompile(`\\(\d+)`)

func fnRegexReplace(a ...any) (any, error) {
	if len(a) != 3 {
		return nil, fmt.Errorf("regex_replace takes a pattern and a replacement, got %d arguments", len(a)-1)
	}
	re, err := regexp.Compile(toString(a[1]))
	if err != nil {
		return nil, fmt.Errorf("regex_replace: %w", err)
	}
	// Python writes group references as \1; Go as ${1}.
	repl := pythonGroup.ReplaceAllString(toString(a[2]), `$${$1}`)
	return re.ReplaceAllString(toString(a[0]), repl), nil
}

// fnDict2Items is Ansible's dict2items: a list of {key, value} maps, sorted by key (a Go map has
// no order of its own; Ansible keeps insertion order, which YAML and JSON inputs make sorted
// often enough that sorting is the closest stable answer).
func fnDict2Items(a ...any) (any, error) {
	if len(a) != 1 {
		return nil, fmt.Errorf("dict2items takes no argument")
	}
	m, ok := a[0].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("dict2items expects a dictionary, got %T", a[0])
	}
	keys := slices.Sorted(maps.Keys(m))
	out := make([]any, 0, len(keys))
	for _, k := range keys {
		out = append(out, map[string]any{"key": k, "value": m[k]})
	}
	return out, nil
}

// fnItems2Dict is Ansible's items2dict: the inverse of dict2items, from a list of {key, value}
// maps (key_name and value_name are not supported yet and are refused).
func fnItems2Dict(a ...any) (any, error) {
	if len(a) != 1 {
		return nil, fmt.Errorf("items2dict: key_name and value_name are not supported by kupgrade")
	}
	list, ok := a[0].([]any)
	if !ok {
		return nil, fmt.Errorf("items2dict expects a list, got %T", a[0])
	}
	out := make(map[string]any, len(list))
	for _, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("items2dict expects {key, value} items, got %T", it)
		}
		k, ok := m["key"]
		if !ok {
			return nil, fmt.Errorf("items2dict: an item has no key")
		}
		out[toString(k)] = m["value"]
	}
	return out, nil
}
