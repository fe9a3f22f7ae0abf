package jinja_test

import (
	"math"
	"testing"

	"github.com/kupgrade/kupgrade/jinja"
)

// TestInt holds Python's answers to int(v) and int(v, 16): what the int filter and the
// playbook keywords (retries, serial) read.
func TestInt(t *testing.T) {
	cases := []struct {
		v    any
		base int
		want int
		ok   bool
	}{
		{42, 10, 42, true}, {true, 10, 1, true}, {false, 10, 0, true},
		{1.9, 10, 1, true}, {-1.9, 10, -1, true}, {" 42\n", 10, 42, true}, {"1_000", 10, 1000, true},
		{"-7", 10, -7, true}, {"0x1f", 16, 31, true}, {"1f", 16, 31, true},
		{"1.5", 10, 0, false}, {"abc", 10, 0, false}, {"", 10, 0, false}, {nil, 10, 0, false},
		{math.Inf(1), 10, 0, false}, {math.NaN(), 10, 0, false}, {[]any{1}, 10, 0, false},
	}
	for _, c := range cases {
		if n, ok := jinja.Int(c.v, c.base); n != c.want || ok != c.ok {
			t.Errorf("Int(%#v, %d) = %d, %t; want %d, %t", c.v, c.base, n, ok, c.want, c.ok)
		}
	}
}
