package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/failure"
)

// explain turns a workflow's failure into an error that says what to do,
// for the commands that wait for one (what names it: "scan of alice").
func explain(err error, user, what string) error {
	if failure.Find(err, failure.NotSignedIn) != nil {
		return notSignedIn(user)
	}
	if msg := appMessage(err); msg != "" {
		return fmt.Errorf("%s failed: %s", what, tidy(msg))
	}
	return fmt.Errorf("%s failed: %w", what, err)
}

// refusal is the error of an operator update: the notebook's reason when
// it refused it (failure.Refused), else err as it is (no worker, a
// closed workflow).
func refusal(err error) error {
	if app := failure.Find(err, failure.Refused); app != nil {
		return errors.New(app.Message())
	}
	return err
}

// notSignedIn is the error for a user the worker has no sign-in for.
func notSignedIn(user string) error {
	return fmt.Errorf("user %q is not signed in to Microsoft: run \"starter login --user %s\" "+
		"(with the token directory and key the worker uses), then run this again", user, user)
}

// appMessage is the message of the outermost application error: what the
// workflow said, without the SDK's wrapping.
func appMessage(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Error()
	}
	return ""
}

// sdkNoise matches what the SDK adds to a failure's text: error types,
// and the activity and child workflow wrappers.
var sdkNoise = regexp.MustCompile(`\s*\((type: [^()]*|wrapError|joinError)\)|(child workflow execution error|activity error) \([^()]*\): `)

// tidy shortens a failure's text for a person: without the SDK's
// wrappers and with each repeated part once, e.g. `listing the pages of
// section "A": onenote: list pages: not found: HTTP 404 code 20102: ...`.
func tidy(msg string) string {
	msg = sdkNoise.ReplaceAllString(msg, "")
	seen := map[string]bool{}
	var parts []string
	for _, p := range strings.Split(msg, ": ") {
		p = strings.TrimSpace(p)
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		parts = append(parts, p)
	}
	return strings.Join(parts, ": ")
}
