package runner

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kupgrade/kupgrade/jinja"
)

// sequenceShort is with_sequence's shortcut form: [start-]end[/stride][:format].
var sequenceShort = regexp.MustCompile(`^(?:(-?[0-9]+|0x[0-9a-fA-F]+|0[0-7]+)-)?(-?[0-9]+|0x[0-9a-fA-F]+|0[0-7]+)(?:/(-?[0-9]+|0x[0-9a-fA-F]+|0[0-7]+))?(?::(.+))?$`)

// sequence is the sequence lookup: each term is `start=1 end=5 stride=1 format=%d` (or count=
// instead of end) or the shortcut; the items are the formatted numbers, as text.
func sequence(terms []any) ([]any, error) {
	var out []any
	for _, t := range terms {
		s := strings.TrimSpace(jinja.Str(t))
		seq := seqSpec{start: 1, stride: 1, format: "%d"}
		if err := seq.parse(s); err != nil {
			return nil, fmt.Errorf("with_sequence %q: %w", s, err)
		}
		items, err := seq.items()
		if err != nil {
			return nil, fmt.Errorf("with_sequence %q: %w", s, err)
		}
		out = append(out, items...)
	}
	return out, nil
}

type seqSpec struct {
	start, end, stride, count int
	hasEnd, hasCount          bool
	format                    string
}

func (q *seqSpec) parse(s string) error {
	if m := sequenceShort.FindStringSubmatch(s); m != nil {
		return q.short(m)
	}
	for w := range strings.FieldsSeq(s) {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return fmt.Errorf("%q is not key=value (start, end, count, stride, format)", w)
		}
		var err error
		switch k {
		case "start":
			q.start, err = seqInt(v)
		case "end":
			q.end, err = seqInt(v)
			q.hasEnd = true
		case "count":
			q.count, err = seqInt(v)
			q.hasCount = true
		case "stride":
			q.stride, err = seqInt(v)
		case "format":
			q.format = v
		default:
			return fmt.Errorf("unrecognized arguments to with_sequence: %s", k)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (q *seqSpec) short(m []string) error {
	var err error
	if m[1] != "" {
		if q.start, err = seqInt(m[1]); err != nil {
			return err
		}
	}
	q.hasEnd = true
	if q.end, err = seqInt(m[2]); err != nil {
		return err
	}
	if m[3] != "" {
		if q.stride, err = seqInt(m[3]); err != nil {
			return err
		}
	}
	if m[4] != "" {
		q.format = m[4]
	}
	return nil
}

// seqInt reads a number as Python's int(x, 0) does: decimal, 0x hex, 0 octal.
func seqInt(s string) (int, error) {
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("can't parse %q as an integer", s)
	}
	return int(n), nil
}

func (q *seqSpec) items() ([]any, error) {
	switch {
	case q.hasEnd && q.hasCount:
		return nil, fmt.Errorf("can't specify both count and end in with_sequence")
	case q.hasCount && q.count == 0:
		return nil, nil
	case q.hasCount:
		q.end = q.start + (q.count-1)*q.stride
	case !q.hasEnd:
		return nil, fmt.Errorf("must specify count or end in with_sequence")
	}
	switch {
	case q.stride > 0 && q.end < q.start:
		return nil, fmt.Errorf("to count backwards make stride negative")
	case q.stride < 0 && q.end > q.start:
		return nil, fmt.Errorf("to count forward don't make stride negative")
	case q.stride == 0:
		return nil, nil
	}
	var out []any
	for i := q.start; (q.stride > 0 && i <= q.end) || (q.stride < 0 && i >= q.end); i += q.stride {
		s := fmt.Sprintf(q.format, i)
		if strings.Contains(s, "%!") {
			return nil, fmt.Errorf("bad formatting string: %s", q.format)
		}
		out = append(out, s)
	}
	return out, nil
}
