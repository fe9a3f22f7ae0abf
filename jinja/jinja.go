package jinja

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// compiled is one parsed template, cached by source: parsing is the costly part and the runner
// renders the same template for every host and task.
type compiled struct {
	tmpl  *exec.Template
	names []string      // every name the template reads; bound before it runs (see scope.bind)
	expr  *nodes.Output // the one {{ }} when that is all the template is, for native values
	plain bool          // only text and {{ }}: rendered without gonja's renderer
}

var (
	cache      sync.Map // source -> *compiled or error
	condCache  sync.Map // a condition's expression -> *compiled or error
	fileCache  sync.Map // a template file's text -> *compiled or error
	cacheCount atomic.Int64
	jcfg       = newConfig()
	jenv       = newEnvironment()
)

// maxCached bounds the cache: sources come from playbooks, so a real run stays far below it;
// past it (fuzzing, a pathological generator) templates are parsed and not kept.
const maxCached = 20000

// newConfig is Ansible's Jinja environment: trim_blocks on, the trailing newline kept, and an
// undefined attribute an error (which default() and `is defined` catch).
func newConfig() *config.Config {
	c := config.New()
	c.TrimBlocks = true
	c.KeepTrailingNewline = true
	c.StrictUndefined = true
	return c
}

func newEnvironment() *exec.Environment {
	filters := exec.NewFilterSet(map[string]exec.FilterFunction{}).Update(builtins.Filters)
	for name, f := range ansibleFilters() {
		filters.Update(exec.NewFilterSet(map[string]exec.FilterFunction{name: f}))
	}
	for name, f := range testFilters {
		filters.Update(exec.NewFilterSet(map[string]exec.FilterFunction{testPrefix + name: f}))
	}
	tests := exec.NewTestSet(map[string]exec.TestFunction{}).Update(builtins.Tests)
	tests.Update(exec.NewTestSet(ansibleTests()))
	return &exec.Environment{
		Context:           exec.EmptyContext(),
		Filters:           filters,
		Tests:             tests,
		ControlStructures: controlStructureSet(),
		Methods:           methods(),
	}
}

// parse returns the cached template of s, parsing and checking it the first time.
func parse(s string) (*compiled, error) { return parseIn(&cache, s, s, false) }

// parseCond is parse for the expression of a condition, which Ansible evaluates in a
// {% if %} statement: its backslashes are not doubled (see preprocess).
func parseCond(expr string) (*compiled, error) {
	if c, ok := condCache.Load(expr); ok {
		return cached(c)
	}
	return parseIn(&condCache, expr, "{{ "+expr+" }}", true)
}

// parseFile is parse for a template file, whose backslashes Ansible does not double either.
func parseFile(s string) (*compiled, error) { return parseIn(&fileCache, s, s, true) }

// parseIn parses s once per key in m; raw keeps the backslashes of string literals as written.
func parseIn(m *sync.Map, key, s string, raw bool) (*compiled, error) {
	if c, ok := m.Load(key); ok {
		return cached(c)
	}
	c, err := parseUncached(s, raw)
	if cacheCount.Load() < maxCached {
		var entry any = c
		if err != nil {
			entry = err
		}
		if _, loaded := m.LoadOrStore(key, entry); !loaded {
			cacheCount.Add(1)
		}
	}
	return c, err
}

func cached(c any) (*compiled, error) {
	if err, isErr := c.(error); isErr {
		return nil, err
	}
	return c.(*compiled), nil
}

func parseUncached(s string, raw bool) (c *compiled, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("cannot parse: %v", r)
		}
	}()
	if err := checkNesting(s); err != nil {
		return nil, err
	}
	t, err := exec.NewTemplate("template", jcfg, sourceLoader(preprocess(nestIfBlocks(s), raw)), jenv)
	if err != nil {
		return nil, parseMessage(err)
	}
	c = &compiled{tmpl: t, plain: true}
	w := &walker{seen: map[uintptr]bool{}, names: map[string]bool{}}
	w.walk(reflect.ValueOf(t.Root()))
	if w.err != nil {
		return nil, w.err
	}
	for n := range w.names {
		c.names = append(c.names, n)
	}
	for _, n := range t.Root().Nodes {
		switch n := n.(type) {
		case *nodes.Output:
			if len(t.Root().Nodes) == 1 {
				c.expr = n
			}
		case *nodes.Data, *nodes.Comment:
		default:
			c.plain = false
		}
	}
	return c, nil
}

// parseMessage keeps what gonja says is wrong without repeating the whole source.
func parseMessage(err error) error {
	msg := err.Error()
	if i := strings.LastIndex(msg, "': "); strings.HasPrefix(msg, "failed to parse template '") && i > 0 {
		msg = msg[i+3:]
	}
	return errors.New(msg)
}

// sourceLoader hands gonja the one source it parses; templates never include or import files.
type sourceLoader string

func (l sourceLoader) Read(string) (io.Reader, error) { return strings.NewReader(string(l)), nil }
func (l sourceLoader) Resolve(p string) (string, error) {
	return "", fmt.Errorf("including %q is not supported by kupgrade", p)
}
func (l sourceLoader) Inherit(string) (loaders.Loader, error) { return l, nil }

// walker visits the whole syntax tree (gonja's control structures keep their expressions in
// unexported fields, which reflection can read): it collects the names the template reads and
// refuses the filters and tests kupgrade does not have, at load time.
type walker struct {
	seen  map[uintptr]bool
	names map[string]bool
	err   error
	depth int // nodes open on the way down, bounded by maxTreeDepth
}

var (
	nameType   = reflect.TypeFor[*nodes.Name]()
	filterType = reflect.TypeFor[*nodes.FilterCall]()
	testType   = reflect.TypeFor[*nodes.TestCall]()
	tokenType  = reflect.TypeFor[*tokens.Token]()
	callType   = reflect.TypeFor[*nodes.Call]()
)

// unsupportedCalls are Ansible's global functions kupgrade does not have: a call of one is
// refused at load time rather than read as an undefined variable.
var unsupportedCalls = map[string]bool{"lookup": true, "query": true, "q": true, "now": true, "undef": true}

func (w *walker) walk(v reflect.Value) {
	if w.err != nil || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == tokenType || w.seen[v.Pointer()] {
			return
		}
		if w.depth++; w.depth > maxTreeDepth {
			w.err = fmt.Errorf("expressions or statements nest more than %d deep", maxTreeDepth)
			return
		}
		w.seen[v.Pointer()] = true
		w.visit(v)
		w.walk(v.Elem())
		w.depth--
	case reflect.Interface:
		if r := rewriteOp(v); r.IsValid() && v.CanAddr() {
			v = settable(v)
			v.Set(r)
		}
		w.walk(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			w.walk(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			w.walk(v.Index(i))
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			w.walk(it.Value())
		}
	}
}

func (w *walker) visit(v reflect.Value) {
	e := v.Elem()
	switch v.Type() {
	case nameType:
		w.names[e.Field(0).Elem().FieldByName("Val").String()] = true
	case callType:
		if n, ok := (*nodes.Call)(v.UnsafePointer()).Func.(*nodes.Name); ok && unsupportedCalls[n.Name.Val] {
			w.err = unsupported("function", n.Name.Val)
		}
	case filterType:
		if name := e.FieldByName("Name").String(); !jenv.Filters.Exists(name) {
			w.err = unsupported("filter", name)
		}
	case testType:
		if name := e.FieldByName("Name").String(); !jenv.Tests.Exists(name) {
			w.err = unsupported("test", name)
		}
		// gonja reads `is version('1.2', '<')` as one tuple argument: spread it.
		tc := (*nodes.TestCall)(v.UnsafePointer())
		if len(tc.Args) == 1 {
			if t, ok := tc.Args[0].(*nodes.Tuple); ok {
				tc.Args = t.Val
			}
		}
	}
}

func unsupported(what, name string) error {
	return fmt.Errorf("%s '%s' is not supported by kupgrade", what, strings.ReplaceAll(name, dotMark, "."))
}

// dotMark stands for "." inside a dotted filter or test name, which gonja cannot parse: the
// name of an unsupported collection's filter (ansible.utils.ipaddr) is then reported whole.
const dotMark = "__dot__"

// fqcnRef is a dotted filter or test name after "|" or "is [not]".
var fqcnRef = regexp.MustCompile(`(\|\s*|\bis\s+(?:not\s+)?)([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)`)

// preprocess prepares Ansible's Jinja for gonja, outside string literals and inside them:
//   - dotted filter and test names: ansible.builtin.X and ansible.legacy.X become X, another
//     collection's name is kept whole (with dotMark) for the "not supported" error;
//   - backslashes in the string literals of {{ }} are doubled, as Ansible does so that a
//     playbook writes '\1' rather than '\\1' (not when raw: a condition, which Ansible
//     evaluates in {% if %}, and a template file);
//   - an escape Python keeps as it is ('\.' in a regular expression) is kept, where gonja
//     would refuse it.
func preprocess(s string, raw bool) string {
	if !strings.Contains(s, ".") && !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		start := strings.Index(s[i:], "{")
		if start < 0 || i+start+1 >= len(s) || (s[i+start+1] != '{' && s[i+start+1] != '%') {
			if start < 0 {
				b.WriteString(s[i:])
				break
			}
			b.WriteString(s[i : i+start+1])
			i += start + 1
			continue
		}
		start += i
		b.WriteString(s[i : start+2])
		i = codeBlock(&b, s, start+2, s[start+1] == '{' && !raw)
	}
	return b.String()
}

// codeBlock copies the code of one {{ }} or {% %} from s[i:] to b, rewriting as preprocess
// says, and returns where it ends.
func codeBlock(b *strings.Builder, s string, i int, double bool) int {
	closer := "}}"
	if s[i-1] == '%' {
		closer = "%}"
	}
	code := i
	for i < len(s) && !strings.HasPrefix(s[i:], closer) {
		q := s[i]
		if q != '\'' && q != '"' {
			i++
			continue
		}
		b.WriteString(fqcnNames(s[code:i]))
		b.WriteByte(q)
		for i++; i < len(s) && s[i] != q; i++ {
			if s[i] != '\\' || i+1 >= len(s) {
				b.WriteByte(s[i])
				continue
			}
			switch {
			case double:
				b.WriteString(`\\`)
			case strings.IndexByte(`\'"abfnrtvxuU01234567`, s[i+1]) < 0:
				b.WriteString(`\\`)
			default:
				b.WriteByte('\\')
				b.WriteByte(s[i+1])
				i++
			}
		}
		if i < len(s) {
			b.WriteByte(q)
			i++
		}
		code = i
	}
	b.WriteString(fqcnNames(s[code:i]))
	return i
}

func fqcnNames(code string) string {
	return fqcnRef.ReplaceAllStringFunc(code, func(m string) string {
		sub := fqcnRef.FindStringSubmatch(m)
		name := sub[2]
		short, ok := strings.CutPrefix(name, "ansible.builtin.")
		if !ok {
			short, ok = strings.CutPrefix(name, "ansible.legacy.")
		}
		if !ok {
			short = strings.ReplaceAll(name, ".", dotMark)
		}
		return sub[1] + short
	})
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// CheckTemplate parses a template without rendering it, so that a loader can refuse a bad
// expression, an unknown filter or test, or an unsupported call before anything runs. Text
// without `{{` or `{%` is not a template and always passes.
func CheckTemplate(s string) error {
	if !isTemplate(s) {
		return nil
	}
	_, err := parse(s)
	return err
}
