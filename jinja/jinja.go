package jinja

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/nikolalohinski/gonja/v2/nodes"
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
	for _, name := range iterating {
		if f, ok := builtins.Filters.Get(name); ok {
			filters.Update(exec.NewFilterSet(map[string]exec.FilterFunction{name: keysFirst(f)}))
		}
	}
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
	if !c.plain {
		strOutputs(w.outs)
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
