package main

import (
	"errors"
	"strings"

	"github.com/kupgrade/kupgrade/internal/shellword"
	"github.com/kupgrade/kupgrade/state"
)

// message is err's text for the operator: the next steps the store's errors carry are spelled
// here, as this binary's commands (a.commands then completes the quoted ones with global flags).
func message(err error) string {
	text := err.Error()
	var ne *state.NextStepError
	if errors.As(err, &ne) {
		text = strings.Replace(text, ne.Error(), ne.Render(stepCommand), 1)
	}
	return text
}

// stepCommand is step as a command line of this binary, each word quoted for the shell so that a
// host or version the step names can be pasted as it is.
func stepCommand(step state.NextStep) string {
	return "kupgrade " + shellword.Join(step.Words)
}
