package modules

import (
	"testing"
)

func TestWrap(t *testing.T) {
	cases := []struct {
		name   string
		env    map[string]string
		become bool
		user   string
		want   string
	}{
		{"bare", nil, false, "", "echo hi"},
		{"become defaults to root", nil, true, "", "exec sudo -n -u root -- sh -c " + quote(becomeGuard) + " sh 'echo hi'"},
		{"env is sorted and quoted", map[string]string{"B": "x y", "A": "1"}, false, "", `exec env A=1 'B=x y' sh -c 'echo hi'`},
		{"env inside sudo", map[string]string{"A": "it's"}, true, "kube", "exec sudo -n -u kube -- sh -c " + quote(becomeGuard) + " sh " + `'exec env '\''A=it'\''\'\'''\''s'\'' sh -c '\''echo hi'\'''`},
	}
	for _, c := range cases {
		if got := Wrap("echo hi", c.env, c.become, c.user); got != c.want {
			t.Errorf("%s: wrap = %s\nwant %s", c.name, got, c.want)
		}
	}
}
