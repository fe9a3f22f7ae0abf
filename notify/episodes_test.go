package notify

import (
	"reflect"
	"testing"
)

func TestEpisodesNotifyOncePerEpisode(t *testing.T) {
	var e Episodes
	steps := []struct {
		pass, want []string
	}{
		{[]string{"a"}, []string{"a"}},
		{[]string{"a", "a"}, nil}, // still stuck at the next poll: already told
		{[]string{"a", "b"}, []string{"b"}},
		{nil, nil},                     // failed by the audit: the episode ends
		{[]string{"a"}, []string{"a"}}, // stuck again: a new episode
	}
	for i, s := range steps {
		if got := e.Pass(s.pass); !reflect.DeepEqual(got, s.want) {
			t.Fatalf("pass %d: %v, want %v", i, got, s.want)
		}
	}
}
