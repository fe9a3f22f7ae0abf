package jinja

import (
	"math"
	"strconv"
	"strings"
)

// Int converts v to a whole number as Python's int(v, base) does: an int as it is, a bool as 0
// or 1, a finite float cut toward zero, a string of digits in base (surrounding spaces and
// underscores between digits allowed; a 0x or 0o prefix when base is not 10). ok is false for
// anything else: the int filter then tries the string as a float and falls back to its
// default, a playbook keyword (retries, serial) refuses it.
func Int(v any, base int) (n int, ok bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return 0, false
		}
		return int(x), true
	case string:
		s := strings.ReplaceAll(strings.TrimSpace(x), "_", "")
		if base != 10 {
			s = strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(s), "0x"), "0o")
		}
		i, err := strconv.ParseInt(s, base, 64)
		return int(i), err == nil
	}
	return 0, false
}
