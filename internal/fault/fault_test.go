package fault_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
)

func TestMark(t *testing.T) {
	base := fmt.Errorf("open hosts.yml: %w", fs.ErrNotExist)
	err := fmt.Errorf("load: %w", fault.Mark(base, fault.ErrBadInput))
	if err.Error() != "load: open hosts.yml: file does not exist" {
		t.Errorf("message %q, want the marked error's own", err)
	}
	if !errors.Is(err, fault.ErrBadInput) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is lost the class or the cause: %v", err)
	}
	if errors.Is(err, fault.ErrUnreachable) || errors.Is(err, fault.ErrRefused) {
		t.Errorf("%v is of a class it was not marked with", err)
	}
	var pe *fs.PathError
	if !errors.As(fault.Mark(&fs.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}, fault.ErrBadInput), &pe) {
		t.Error("errors.As does not see through Mark")
	}
	if fault.Mark(nil, fault.ErrBadInput) != nil {
		t.Error("Mark(nil) is not nil")
	}
}
