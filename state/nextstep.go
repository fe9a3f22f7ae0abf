package state

import (
	"fmt"
	"strings"
)

// NextStep is a command an operator runs next, named by its words without the program's name:
// {"upgrade", "start", "VERSION"}. The store's errors carry it typed, and cmd/kupgrade renders
// it (with the global flags the operator gave); state spells it only for its plain Error text.
type NextStep struct{ Words []string }

// Next is the next step of words.
func Next(words ...string) NextStep { return NextStep{Words: words} }

// PlainCommand is step as a command line with no global flags: "kupgrade upgrade start VERSION".
func PlainCommand(step NextStep) string { return "kupgrade " + strings.Join(step.Words, " ") }

// NextStepError is Err followed by advice naming the next steps: Advice holds one %s per step
// (the quoting around it is the advice's own), filled in by whoever renders the error.
type NextStepError struct {
	Err    error
	Advice string
	Steps  []NextStep
}

// WithNextSteps is err followed by advice naming steps (one %s in advice per step).
func WithNextSteps(err error, advice string, steps ...NextStep) error {
	return &NextStepError{Err: err, Advice: advice, Steps: steps}
}

// Error is the message with its steps as plain commands.
func (e *NextStepError) Error() string { return e.Render(PlainCommand) }

// Unwrap is the error without the advice; its class (ErrNotFound, ErrConflict...) stays visible.
func (e *NextStepError) Unwrap() error { return e.Err }

// Render is the message with each step spelled by command.
func (e *NextStepError) Render(command func(NextStep) string) string {
	args := make([]any, len(e.Steps))
	for i, s := range e.Steps {
		args[i] = command(s)
	}
	return e.Err.Error() + fmt.Sprintf(e.Advice, args...)
}
