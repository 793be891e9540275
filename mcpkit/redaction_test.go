package mcpkit

import (
	"bytes"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/mcpkit/internal/redact"
)

func TestRedactingLog(t *testing.T) {
	var buf bytes.Buffer
	k, err := NewRuntime(API{Name: "x", EnvPrefix: "X", Schemes: []Scheme{{Name: "k", Kind: APIKey, In: "query", ParamName: "api_key", Env: "X_K_KEY"}}},
		Config{BaseURL: "http://127.0.0.1:1", Getenv: func(string) string { return "a+b/c=d" }, Log: &buf, Secrets: []string{"hs256-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	k.Logger().Warn("failed", "url", "http://h/x?api_key="+url.QueryEscape("a+b/c=d"), "other", "hs256-secret")
	if s := buf.String(); strings.Contains(s, "a%2Bb") || strings.Contains(s, "hs256-secret") || strings.Count(s, redact.Redacted) != 2 {
		t.Errorf("log line: %s", s)
	}
}

// A caller's Authorization header is redacted on top of the server's
// secrets, and its Redactor is built once per header value.
func TestCallerRedactor(t *testing.T) {
	k := testKit(t, nil)
	k.redactor = redact.New([]string{"server-key-1"}, nil)
	h := "Basic " + base64.StdEncoding.EncodeToString([]byte("me:caller-pw"))
	c := &Call{kit: k, header: map[string][]string{"Authorization": {h}}}
	got := c.redact("server-key-1 caller-pw " + base64.StdEncoding.EncodeToString([]byte("me:caller-pw")))
	if got != "[redacted] [redacted] [redacted]" {
		t.Errorf("%q", got)
	}
	if k.callers.For(k.redactor, h) != k.callers.For(k.redactor, h) {
		t.Error("built twice")
	}
}

// The approval key signs approvals: it is a secret like the credentials.
func TestApprovalKeyRedacted(t *testing.T) {
	key := "approval-key-of-at-least-32-bytes!!"
	var log bytes.Buffer
	k, err := NewRuntime(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: "http://127.0.0.1:1", Log: &log, ApprovalKey: []byte(key), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if got := k.redact("key " + key); got != "key [redacted]" {
		t.Errorf("%q", got)
	}
	k.Logger().Info("echo", "v", key)
	if strings.Contains(log.String(), key) {
		t.Errorf("logged: %s", log.String())
	}
}
