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
		{in: "v1.29.4", want: Version{1, 29, 4}},
		{in: "v1.30.0", want: Version{1, 30, 0}},
		{in: "1.29.4", bad: true},
		{in: "v1.29", bad: true},
		{in: "v1.29.4.1", bad: true},
		{in: "v1.29.x", bad: true},
		{in: "v1.+2.3", bad: true},
		{in: "v1.02.3", bad: true},
		{in: "v1.29.4-rc.0", bad: true},
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
		if err != nil || got != tc.want || got.String() != tc.in {
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
	}
	for _, tc := range tests {
		from, _ := ParseVersion(tc.from)
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
		if v.String() != s {
			t.Fatalf("ParseVersion(%q) = %v: does not print back", s, v)
		}
	})
}
