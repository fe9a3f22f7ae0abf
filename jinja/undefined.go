package jinja

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// Undefined is the value of a variable or attribute that does not exist. It is an error value:
// anything but default(), `is defined` and `is undefined` that touches it fails with it.
type Undefined struct {
	Name  string          // the variable, or "'dict object' has no attribute 'x'" form
	Attr  bool            // Name is an attribute missing from a mapping
	Cause *UndefinedError // a variable holding a template that reads an undefined one
}

func (u *Undefined) Error() string { return u.err().Error() }

func (u *Undefined) err() *UndefinedError {
	if u.Cause != nil {
		return u.Cause
	}
	return &UndefinedError{Name: u.Name, Attr: u.Attr}
}

// GetAttribute keeps a chain of attributes of an undefined value undefined, as Ansible does:
// `a.b.c is defined` is false when a is not set.
func (u *Undefined) GetAttribute(string) (*exec.Value, bool) { return exec.AsValue(u), true }

// GetItem is GetAttribute for a[...].
func (u *Undefined) GetItem(any) (*exec.Value, bool) { return exec.AsValue(u), true }

// gonjaMissing is how gonja reports a missing attribute or item of a value that is not one of
// ours (a literal dict, an item of a loop over a filter's result).
var (
	gonjaMissing = regexp.MustCompile(`(?:attribute|item) '*([^' ]*)'* not found|(?i:can't use get(?:item|attr) on none)`)
	// undefinedText is an *Undefined that gonja turned into text on the way (a filter's error).
	undefinedText = regexp.MustCompile(`'([^']*)' is undefined|'dict object' has no attribute '([^']*)'`)
)

// undefinedOf finds the *Undefined an error value carries, through gonja's wrapping.
func undefinedOf(v *exec.Value) (*Undefined, bool) {
	if v == nil || !v.IsError() {
		return nil, false
	}
	for err := v.Interface().(error); err != nil; {
		if u, ok := err.(*Undefined); ok {
			return u, true
		}
		var inner *exec.Value
		if errors.As(err, &inner) && inner != v {
			return undefinedOf(inner)
		}
		if m := gonjaMissing.FindStringSubmatch(err.Error()); m != nil {
			return &Undefined{Name: m[1], Attr: true}, true
		}
		if m := undefinedText.FindStringSubmatch(err.Error()); m != nil {
			return &Undefined{Name: m[1] + m[2], Attr: m[2] != ""}, true
		}
		return nil, false
	}
	return nil, false
}

// isUndefined reports whether v is an undefined value (not any other error).
func isUndefined(v *exec.Value) bool {
	_, ok := undefinedOf(v)
	return ok
}

// UndefinedError is a template or condition that read a variable nobody set.
type UndefinedError struct {
	Name string // the variable, or the attribute when Attr
	Attr bool
}

func (e *UndefinedError) Error() string {
	if e.Attr {
		return fmt.Sprintf("'dict object' has no attribute '%s'", e.Name)
	}
	return fmt.Sprintf("'%s' is undefined", e.Name)
}
