package modules

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// modPause is Ansible's pause as ansible-core 2.14 runs it without a terminal (kupgrade never
// reads one): seconds or minutes wait that long on the controller (at least a second); a
// prompt alone does not wait, with Ansible's warning; user_input is always empty. The result
// has Ansible's keys and its "Paused for N seconds" (or minutes) text.
func modPause(ctx context.Context, _ *Task, args map[string]any) (Result, error) {
	seconds, unit, err := pauseLength(args)
	if err != nil {
		return Failure("pause: " + err.Error()), nil
	}
	res := Result{"changed": false, "rc": 0, "stderr": "", "echo": argBool(args, "echo", true), "user_input": ""}
	start := time.Now()
	res["start"] = pyNow(start)
	if seconds < 0 {
		res["warnings"] = []any{"Not waiting for response to prompt as stdin is not interactive"}
	} else {
		select {
		case <-time.After(time.Duration(seconds) * time.Second):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	took := time.Since(start)
	res["stop"], res["delta"] = pyNow(time.Now()), int(took.Seconds())
	n := took.Seconds()
	if unit == "minutes" {
		n /= 60
	}
	res["stdout"] = fmt.Sprintf("Paused for %s %s", pyFloat(math.Round(n*100)/100), unit)
	return res, nil
}

// pauseLength is how many whole seconds a pause waits (-1: none, a prompt alone) and the unit
// its text says; minutes and seconds are whole numbers (a float is cut, as Python's int()).
func pauseLength(args map[string]any) (int, string, error) {
	for _, k := range []string{"minutes", "seconds"} {
		s := ArgStr(args, k)
		if s == "" {
			continue
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, "", fmt.Errorf("%s %q is not a number", k, s)
		}
		n := int(f)
		if k == "minutes" {
			n *= 60
		}
		return max(n, 1), k, nil
	}
	return -1, "minutes", nil
}

// pyNow is a time as Python's str(datetime.now()).
func pyNow(t time.Time) string { return t.Format("2006-01-02 15:04:05.000000") }

// pyFloat is a float as Python's str() writes it (2.0, not 2).
func pyFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
