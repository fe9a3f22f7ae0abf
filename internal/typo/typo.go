package typo

import (
	"strings"

	"github.com/hbollon/go-edlib"
)

// maxLen bounds the strings compared edit by edit: longer ones are never typos of the short
// keywords and names we suggest, and the distance is quadratic work.
const maxLen = 64

// Closest returns the candidate nearest to s, or "" when none is near enough to be a likely
// typo. The first of equally near candidates wins.
func Closest(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := distance(strings.ToLower(s), strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(s) <= 3 {
		limit = 1
	}
	if bestD < 0 || bestD > limit {
		return ""
	}
	return best
}

// distance is the optimal-string-alignment distance: a swap of two neighbours ("hsots") counts
// as one edit, the commonest typo.
func distance(a, b string) int {
	if len(a) > maxLen || len(b) > maxLen {
		if a == b {
			return 0
		}
		return maxLen
	}
	return edlib.OSADamerauLevenshteinDistance(a, b)
}
