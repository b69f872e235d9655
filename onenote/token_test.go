package onenote

import (
	"context"
	"errors"
	"testing"

	"golang.org/x/oauth2"
)

type fakeOAuth2 struct {
	tok *oauth2.Token
	err error
}

func (f fakeOAuth2) Token() (*oauth2.Token, error) { return f.tok, f.err }

func TestOAuth2Tokens(t *testing.T) {
	got, err := OAuth2Tokens(fakeOAuth2{tok: &oauth2.Token{AccessToken: "abc"}}).Token(context.Background())
	if err != nil || got != "abc" {
		t.Fatalf("got %q, %v", got, err)
	}
	boom := errors.New("refresh failed")
	if _, err := OAuth2Tokens(fakeOAuth2{err: boom}).Token(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}
