package jinja

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// tVersion is version(value, operator='eq', strict=False, version_type=None) with Python's
// LooseVersion (strict: StrictVersion; semver and pep440 compare as loose versions here).
func tVersion(in any, args []any, kw map[string]any) (bool, error) {
	if len(args) < 1 {
		if _, ok := kw["version"]; !ok {
			return false, errors.New("needs a version to compare with")
		}
	}
	other := str(arg(args, kw, 0, "version", ""))
	op := str(arg(args, kw, 1, "operator", "eq"))
	strict := truth(arg(args, kw, 2, "strict", false))
	if vt, _ := kw["version_type"].(string); vt == "strict" {
		strict = true
	}
	a, b := str(in), other
	if a == "" || b == "" {
		return false, errors.New("version value cannot be empty")
	}
	if strict && (!strictVersion.MatchString(a) || !strictVersion.MatchString(b)) {
		return false, fmt.Errorf("invalid version number")
	}
	c, err := compareLoose(looseParts(a), looseParts(b))
	if err != nil {
		return false, err
	}
	switch op {
	case "<", "lt":
		return c < 0, nil
	case "<=", "le":
		return c <= 0, nil
	case ">", "gt":
		return c > 0, nil
	case ">=", "ge":
		return c >= 0, nil
	case "==", "=", "eq":
		return c == 0, nil
	case "!=", "<>", "ne":
		return c != 0, nil
	}
	return false, fmt.Errorf("invalid operator type (%s)", op)
}

var (
	strictVersion = regexp.MustCompile(`^\d+\.\d+(\.\d+)?([ab]\d+)?$`)
	loosePart     = regexp.MustCompile(`\d+|[a-z]+|\.`)
)

// looseParts splits a version as distutils' LooseVersion does: numbers and letter runs.
func looseParts(v string) []any {
	var out []any
	for _, p := range loosePart.FindAllString(strings.ToLower(v), -1) {
		if p == "." {
			continue
		}
		if n, err := strconv.Atoi(p); err == nil {
			out = append(out, n)
		} else {
			out = append(out, p)
		}
	}
	return out
}

func compareLoose(a, b []any) (int, error) {
	for i := 0; i < len(a) && i < len(b); i++ {
		na, aNum := a[i].(int)
		nb, bNum := b[i].(int)
		switch {
		case aNum && bNum:
			if na != nb {
				return cmpInt(na, nb), nil
			}
		case !aNum && !bNum:
			if sa, sb := a[i].(string), b[i].(string); sa != sb {
				return strings.Compare(sa, sb), nil
			}
		default:
			return 0, errors.New("Version comparison failed: '<' not supported between instances of 'str' and 'int'")
		}
	}
	return cmpInt(len(a), len(b)), nil
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
