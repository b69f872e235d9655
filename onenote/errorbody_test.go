package onenote

import "testing"

func TestParseErrorBody(t *testing.T) {
	tests := []struct {
		in        string
		code, msg string
		ok        bool
	}{
		{`{"error":{"code":"20166","message":"The app has issued too many requests"}}`, "20166", "The app has issued too many requests", true},
		{`{"error":{"code":20166,"message":"numeric"}}`, "20166", "numeric", true},
		{`{"error":{"code":"InvalidAuthenticationToken","message":"Access token has expired.","innerError":{"date":"x"}}}`, "InvalidAuthenticationToken", "Access token has expired.", true},
		{` {"error":{"code":"10008"}} `, "10008", "", true},
		{`{"error":{"code":1.5e3}}`, "1.5e3", "", true},
		{`{"error":{"code":null,"message":["x"]}}`, "", "", true},
		{`{"error":{}}`, "", "", true},
		{`{"error":null}`, "", "", false},
		{`{"error":"string"}`, "", "", false},
		{`{"err":{"code":"1"}}`, "", "", false},
		{`{"error":{"code":"201`, "", "", false},
		{``, "", "", false},
		{`<html>Bad Gateway</html>`, "", "", false},
		{`[]`, "", "", false},
	}
	for _, tt := range tests {
		got, ok := ParseErrorBody([]byte(tt.in))
		if ok != tt.ok || got.Code != tt.code || got.Message != tt.msg {
			t.Errorf("ParseErrorBody(%s) = %+v, %v; want code %q msg %q ok %v", tt.in, got, ok, tt.code, tt.msg, tt.ok)
		}
	}
}
