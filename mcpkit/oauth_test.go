package mcpkit

import (
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/tailormcp/tailor/mcpkit/internal/bearer"
)

func TestScopesAllow(t *testing.T) {
	tool := &Tool{Name: "write_thing", Scopes: []string{"things:write", "things:read"}}
	open, err := NewRuntime(API{Name: "t", EnvPrefix: "T"}, Config{BaseURL: "http://127.0.0.1:1", Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := open.scopesAllow(nil, tool); !ok {
		t.Error("without token verification, scopes are not checked")
	}
	verified, err := NewRuntime(API{Name: "t", EnvPrefix: "T"}, Config{BaseURL: "http://127.0.0.1:1", Log: io.Discard, Verifier: bearer.HS256Verifier([]byte("k"))})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		token   *auth.TokenInfo
		missing string
	}{
		{nil, "things:write things:read"},
		{&auth.TokenInfo{Scopes: []string{"things:read"}}, "things:write"},
		{&auth.TokenInfo{Scopes: []string{"things:read", "other", "things:write"}}, ""},
	} {
		missing, ok := verified.scopesAllow(c.token, tool)
		if missing != c.missing || ok != (c.missing == "") {
			t.Errorf("%+v: %q %v, want %q", c.token, missing, ok, c.missing)
		}
	}
	if _, ok := verified.scopesAllow(nil, &Tool{Name: "free"}); !ok {
		t.Error("a tool without scopes is refused")
	}
}

// With an issuer, as with any verifier, a context value needs a claim
// source: a header or the environment would not count.
func TestOAuthNeedsClaimSources(t *testing.T) {
	api := API{Name: "t", EnvPrefix: "T", Context: []ContextValue{{Name: "tenant", Header: "X-Tenant"}}}
	_, err := NewRuntime(api, Config{BaseURL: "http://127.0.0.1:1", Log: io.Discard, OAuth: &OAuth{Issuer: "https://idp.example.com", Audience: "a"}})
	if err == nil || !strings.Contains(err.Error(), `context value "tenant" has no claim source`) {
		t.Fatalf("err = %v", err)
	}
	_, err = NewRuntime(api, Config{BaseURL: "http://127.0.0.1:1", Log: io.Discard, OAuth: &OAuth{Issuer: "https://idp.example.com", Audience: "a"}, Verifier: bearer.HS256Verifier([]byte("k"))})
	if err == nil || !strings.Contains(err.Error(), "both an OAuth issuer and another token verifier") {
		t.Fatalf("err = %v", err)
	}
}
