package typo

import "testing"

func TestClosest(t *testing.T) {
	keys := []string{"hosts", "children", "vars"}
	for _, tt := range []struct {
		s     string
		cands []string
		want  string
	}{
		{"hsots", keys, "hosts"},        // a swap is one edit
		{"chlidren", keys, "children"},  // so is this one
		{"HOSTS", keys, "hosts"},        // case does not count
		{"varz", keys, "vars"},          // a substitution
		{"childrenn", keys, "children"}, // an insertion
		{"host_vars", keys, ""},         // too far from all of them
		{"vas", keys, "vars"},           // short words: one edit only...
		{"vr", []string{"vars"}, ""},    // ...and two is too many
		{"whne", []string{"when", "with_items"}, "when"},
		{"x", nil, ""},
		{"ab", []string{"ax", "ay"}, "ax"}, // the first of equals wins
		{string(make([]byte, 100)), []string{string(make([]byte, 100))}, string(make([]byte, 100))},
		{string(make([]byte, 100)), []string{string(make([]byte, 99))}, ""},
	} {
		if got := Closest(tt.s, tt.cands); got != tt.want {
			t.Errorf("Closest(%q, %q) = %q, want %q", tt.s, tt.cands, got, tt.want)
		}
	}
}

// FuzzClosest: Closest never panics and suggests only one of the candidates.
func FuzzClosest(f *testing.F) {
	f.Add("hsots", "hosts")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, s, c string) {
		got := Closest(s, []string{c, "vars"})
		if got != "" && got != c && got != "vars" {
			t.Fatalf("Closest(%q) = %q, not a candidate", s, got)
		}
	})
}
