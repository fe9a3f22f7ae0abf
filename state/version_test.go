package state

import (
	"errors"
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in   string
		want Version
		bad  bool
	}{
		{in: "v1.29.4", want: Version{Major: 1, Minor: 29, Patch: 4}},
		{in: "v1.30.0", want: Version{Major: 1, Minor: 30}},
		{in: "1.29.4", want: Version{Major: 1, Minor: 29, Patch: 4}},
		{in: "v1.31.0-rc.1", want: Version{Major: 1, Minor: 31, Pre: "rc.1"}},
		{in: "1.31.0-alpha.0", want: Version{Major: 1, Minor: 31, Pre: "alpha.0"}},
		{in: "v1.31.0-rc.01", bad: true},
		{in: "v1.31.0-", bad: true},
		{in: "v1.31.0-rc..1", bad: true},
		{in: "v1.31.0+abc", bad: true},
		{in: "vv1.2.3", bad: true},
		{in: "v1.29", bad: true},
		{in: "v1.29.4.1", bad: true},
		{in: "v1.29.x", bad: true},
		{in: "v1.+2.3", bad: true},
		{in: "v1.02.3", bad: true},
		{in: "", bad: true},
	}
	for _, tc := range tests {
		got, err := ParseVersion(tc.in)
		if tc.bad {
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), `"`+tc.in+`"`) {
				t.Errorf("ParseVersion(%q) = %v, %v; want ErrBadInput naming the value", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want || got.String() != "v"+strings.TrimPrefix(tc.in, "v") {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestCheckVersionStep(t *testing.T) {
	tests := []struct {
		from, to string
		force    bool
		want     error
	}{
		{"v1.29.4", "v1.30.2", false, nil},
		{"v1.29.4", "v1.29.6", false, nil},
		{"v1.29.4", "v1.29.4", false, ErrRefused},
		{"v1.29.4", "v1.29.4", true, ErrRefused},
		{"v1.29.4", "v1.28.9", false, ErrRefused},
		{"v1.29.4", "v1.28.9", true, nil},
		{"v1.29.4", "v1.31.0", false, ErrRefused},
		{"v1.29.4", "v1.31.0", true, nil},
		{"v1.29.4", "v2.0.0", false, ErrRefused},
		{"1.29.4", "1.30.1", false, nil},
		{"v1.30.4", "v1.31.0-rc.1", false, ErrRefused},
		{"v1.30.4", "v1.31.0-rc.1", true, ErrRefused},
		{"v1.31.0-rc.1", "v1.31.0", false, nil},
		{"v1.31.0", "v1.31.0-rc.1", false, ErrRefused},
	}
	for _, tc := range tests {
		from, _ := ParseVersion(tc.from) // tests of ParseVersion check that these parse
		to, _ := ParseVersion(tc.to)
		err := CheckVersionStep(from, to, tc.force)
		if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("CheckVersionStep(%s, %s, force=%v) = %v, want %v", tc.from, tc.to, tc.force, err, tc.want)
		}
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"v1.29.4", "v0.0.0", "1.2.3", "v1.2", "v999999999.1.1", "v1..2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("ParseVersion(%q): error %v is not ErrBadInput", s, err)
			}
			return
		}
		if v.String() != "v"+strings.TrimPrefix(s, "v") {
			t.Fatalf("ParseVersion(%q) = %v: does not print back", s, v)
		}
	})
}

func TestVersionCompare(t *testing.T) {
	order := []string{"v1.30.9", "v1.31.0-alpha.0", "v1.31.0-alpha.1", "v1.31.0-alpha.beta", "v1.31.0-beta.2", "v1.31.0-rc.0", "v1.31.0-rc.0.1", "v1.31.0-rc.1", "v1.31.0", "v1.31.1"}
	for i := range order {
		for j := range order {
			a, errA := ParseVersion(order[i])
			b, errB := ParseVersion(order[j])
			if errA != nil || errB != nil {
				t.Fatalf("parse %s, %s: %v, %v", order[i], order[j], errA, errB)
			}
			want := sign(i - j)
			if got := a.Compare(b); got != want {
				t.Errorf("%s.Compare(%s) = %d, want %d", a, b, got, want)
			}
		}
	}
}
