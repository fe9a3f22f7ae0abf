package inventory

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
)

// FuzzLoadINI writes arbitrary bytes as an INI inventory (a file named hosts.ini, which is never
// read as YAML) and loads it: no panic, errors are positioned bad-input *Errors, and an accepted
// inventory survives every accessor and rendering. pyLiteral and shlexSplit run on every value.
func FuzzLoadINI(f *testing.F) {
	for _, seed := range []string{
		"[web]\nweb-[01:03] port=80 x=\"a b\"\n[web:vars]\ny=[1,2]\n",
		"h1\n[a:children]\nb\n[b]\nh2 d=\"{'k': (1, None)}\" e='\\x41'\n",
		"[g:vars]\nz=1\n", "[a:children]\nmissing\n", "h1 'unclosed\n", "h[a:c]:22 k=0x1F\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "hosts.ini")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		inv, err := Load(path)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, fault.ErrBadInput) {
				t.Fatalf("error %T is not a bad-input *Error: %v", err, err)
			}
			if e.Line < 1 || e.Column < 1 {
				t.Fatalf("error without a place: %v", err)
			}
			return
		}
		checkInventory(t, inv)
	})
}

// FuzzPyLiteral checks that pyLiteral never panics and that what it accepts encodes as JSON.
func FuzzPyLiteral(f *testing.F) {
	for _, s := range []string{"1", "-0x1f", "'a' \"b\"", "[1, (2,), {3: None}]", "1,2", "r'\\n'", "1e999", "{1}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := pyLiteral(s)
		if err != nil {
			return
		}
		if !equalJSON(jsonSafe(v), jsonSafe(v)) {
			t.Fatalf("pyLiteral(%q) = %#v does not encode as JSON", s, v)
		}
	})
}
