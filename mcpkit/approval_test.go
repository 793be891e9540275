package mcpkit

import (
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// TestRequestStates: a state verifies only unchanged, unexpired, under the
// key and for the server it was signed by; a configured key is shared.
func TestRequestStates(t *testing.T) {
	s, err := newStateSigner(nil, "srv")
	if err != nil {
		t.Fatal(err)
	}
	claims := approvalClaims{Quote: "q_1", Tool: "confirm", Bind: "b", Nonce: "n",
		Claims: jwt.Claims{Expiry: jwt.NewNumericDate(time.Now().Add(time.Minute))}}
	state, err := s.sign(claims)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.verify(state)
	if err != nil || got.Quote != "q_1" || got.Nonce != "n" || got.Bind != "b" || got.Tool != "confirm" {
		t.Fatalf("verify: %+v, %v", got, err)
	}
	parts := strings.Split(state, ".")
	forged := parts[0] + "." + strings.TrimRight(parts[1], "=") + "x." + parts[2]
	if _, err := s.verify(forged); err == nil {
		t.Error("a changed payload verified")
	}
	other, _ := newStateSigner(nil, "srv")
	if _, err := other.verify(state); err == nil {
		t.Error("another process's state verified")
	}
	elsewhere, _ := newStateSigner(nil, "other-server")
	elsewhere.key = s.key
	if _, err := elsewhere.verify(state); err == nil {
		t.Error("a state for another server verified")
	}
	claims.Expiry = jwt.NewNumericDate(time.Now().Add(-time.Second))
	expired, _ := s.sign(claims)
	if _, err := s.verify(expired); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired state: %v", err)
	}
	key := []byte(strings.Repeat("k", 32))
	a, _ := newStateSigner(key, "srv")
	b, _ := newStateSigner(key, "srv")
	shared, _ := a.sign(approvalClaims{Quote: "q", Claims: jwt.Claims{Expiry: jwt.NewNumericDate(time.Now().Add(time.Minute))}})
	if _, err := b.verify(shared); err != nil {
		t.Errorf("replicas sharing a key: %v", err)
	}
	if _, err := newStateSigner([]byte("short"), "srv"); err == nil {
		t.Error("a short key was accepted")
	}
	// The derived key is not the configured one: a token signed with the
	// configured key (say, a bearer token secret) is no state.
	raw, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: key}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := jwt.Signed(raw).Claims(approvalClaims{Quote: "q", Claims: jwt.Claims{Audience: jwt.Audience{"srv"}, Expiry: jwt.NewNumericDate(time.Now().Add(time.Minute))}}).Serialize()
	if _, err := a.verify(tok); err == nil || tok == "" {
		t.Error("a token signed with the raw key verified")
	}
}
