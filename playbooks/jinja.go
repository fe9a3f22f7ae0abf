package playbooks

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
	tests := exec.NewTestSet(map[string]exec.TestFunction{}).Update(builtins.Tests)
	tests.Update(exec.NewTestSet(ansibleTests()))
	return &exec.Environment{
		Context:           exec.EmptyContext(),
		Filters:           filters,
		Tests:             tests,
		ControlStructures: builtins.ControlStructures,
		Methods:           builtins.Methods,
	}
}

// parse returns the cached template of s, parsing and checking it the first time.
func parse(s string) (*compiled, error) {
	if c, ok := cache.Load(s); ok {
		if err, isErr := c.(error); isErr {
			return nil, err
		}
		return c.(*compiled), nil
	}
	c, err := parseUncached(s)
	if cacheCount.Load() < maxCached {
		var entry any = c
		if err != nil {
			entry = err
		}
		if _, loaded := cache.LoadOrStore(s, entry); !loaded {
			cacheCount.Add(1)
		}
	}
	return c, err
}

func parseUncached(s string) (c *compiled, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("cannot parse: %v", r)
		}
	}()
	src, err := fqcn(s)
	if err != nil {
		return nil, err
	}
	t, err := exec.NewTemplate("template", jcfg, sourceLoader(src), jenv)
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
}

var (
	nameType   = reflect.TypeFor[*nodes.Name]()
	filterType = reflect.TypeFor[*nodes.FilterCall]()
	testType   = reflect.TypeFor[*nodes.TestCall]()
	tokenType  = reflect.TypeFor[*tokens.Token]()
)

func (w *walker) walk(v reflect.Value) {
	if w.err != nil || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == tokenType || w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		w.visit(v)
		w.walk(v.Elem())
	case reflect.Interface:
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

// fqcn rewrites dotted filter and test names outside string literals: ansible.builtin.X and
// ansible.legacy.X become X, any other collection's name is kept whole for the error.
func fqcn(s string) (string, error) {
	if !strings.Contains(s, ".") {
		return s, nil
	}
	var b strings.Builder
	code := codeSpans(s)
	last := 0
	for _, m := range fqcnRef.FindAllStringSubmatchIndex(s, -1) {
		if !inCode(code, m[4]) {
			continue
		}
		name := s[m[4]:m[5]]
		short, ok := strings.CutPrefix(name, "ansible.builtin.")
		if !ok {
			short, ok = strings.CutPrefix(name, "ansible.legacy.")
		}
		if !ok {
			short = strings.ReplaceAll(name, ".", dotMark)
		}
		b.WriteString(s[last:m[4]])
		b.WriteString(short)
		last = m[5]
	}
	if last == 0 {
		return s, nil
	}
	b.WriteString(s[last:])
	return b.String(), nil
}

// codeSpans returns the [start, end) offsets of the Jinja code in s ({{ }} and {% %}), string
// literals excluded.
func codeSpans(s string) [][2]int {
	var spans [][2]int
	for i := 0; i < len(s)-1; i++ {
		if s[i] != '{' || (s[i+1] != '{' && s[i+1] != '%') {
			continue
		}
		closer := "}}"
		if s[i+1] == '%' {
			closer = "%}"
		}
		start := i + 2
		j := start
		for ; j < len(s) && !strings.HasPrefix(s[j:], closer); j++ {
			if q := s[j]; q == '\'' || q == '"' {
				spans = append(spans, [2]int{start, j})
				for j++; j < len(s) && s[j] != q; j++ {
					if s[j] == '\\' {
						j++
					}
				}
				start = j + 1
			}
		}
		spans = append(spans, [2]int{start, j})
		i = j + 1
	}
	return spans
}

func inCode(spans [][2]int, at int) bool {
	for _, sp := range spans {
		if at >= sp[0] && at < sp[1] {
			return true
		}
	}
	return false
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
