package bearer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/tailormcp/tailor/internal/oidctest"
)

const testAudience = "https://mcp.example.com/mcp"

func testVerifier(t *testing.T, iss *oidctest.Issuer, minInterval time.Duration) *Verifier {
	t.Helper()
	o := OAuth{Issuer: iss.URL, Audience: testAudience, ClockSkew: 30 * time.Second, KeysMinInterval: minInterval}
	if err := o.Check("TEST"); err != nil {
		t.Fatal(err)
	}
	return NewVerifier(o, slog.New(slog.NewJSONHandler(io.Discard, nil)), time.Now)
}

func TestOAuthVerifierAcceptsEachKeyKind(t *testing.T) {
	iss := oidctest.Start(t)
	v := testVerifier(t, iss, time.Millisecond)
	for _, k := range iss.Keys() {
		t.Run(string(k.Alg), func(t *testing.T) {
			c := iss.Valid(testAudience, "user-1", "items:read", "items:write")
			c["tenant"] = "t-9"
			info, err := v.Verify(context.Background(), oidctest.Sign(t, k, c), nil)
			if err != nil {
				t.Fatalf("valid %s token refused: %v", k.Alg, err)
			}
			if info.UserID != "user-1" || info.Extra["tenant"] != "t-9" || strings.Join(info.Scopes, " ") != "items:read items:write" || info.Expiration.IsZero() {
				t.Fatalf("token info = %+v", info)
			}
		})
	}
}

func TestOAuthVerifierRefusals(t *testing.T) {
	iss := oidctest.Start(t)
	v := testVerifier(t, iss, time.Millisecond)
	rsa := iss.Keys()[0]
	valid := func() oidctest.Claims { return iss.Valid(testAudience, "user-1", "items:read") }
	with := func(k string, val any) oidctest.Claims { c := valid(); c[k] = val; return c }
	without := func(k string) oidctest.Claims { c := valid(); delete(c, k); return c }
	now := time.Now()
	cases := []struct {
		name, token, want string
	}{
		{"wrong audience", oidctest.Sign(t, rsa, with("aud", "https://other.example.com/mcp")), "not for this server"},
		{"wrong issuer", oidctest.Sign(t, rsa, with("iss", "https://evil.example.com")), "issued by \"https://evil.example.com\""},
		{"expired", oidctest.Sign(t, rsa, with("exp", now.Add(-2*time.Minute).Unix())), "expired at"},
		{"not yet valid", oidctest.Sign(t, rsa, with("nbf", now.Add(2*time.Minute).Unix())), "not valid before"},
		{"issued in the future", oidctest.Sign(t, rsa, with("iat", now.Add(2*time.Minute).Unix())), "issued in the future"},
		{"no expiry", oidctest.Sign(t, rsa, without("exp")), "no expiry"},
		{"unknown kid", oidctest.Sign(t, iss.NewKey(t, "stranger"), valid()), `no signing key with id "stranger"`},
		{"alg none", oidctest.Unsigned(rsa.ID, valid()), "accepted algorithm"},
		{"HS256 keyed with the public key", oidctest.HS256WithPublicKey(t, rsa, valid()), "accepted algorithm"},
		{"scope not a string", oidctest.Sign(t, rsa, with("scope", []any{"items:read"})), "scope claim is an array"},
		{"exp a string", oidctest.Sign(t, rsa, with("exp", "2099-01-01")), "claim exp must be a number"},
		{"nbf an object", oidctest.Sign(t, rsa, with("nbf", map[string]any{})), "claim nbf must be a number"},
		{"iss a number", oidctest.Sign(t, rsa, with("iss", 7)), "claim iss must be a string"},
		{"aud with a number", oidctest.Sign(t, rsa, with("aud", []any{testAudience, 1})), "claim aud must be a string or a list of strings"},
		{"scp with a number", oidctest.Sign(t, rsa, with("scp", []any{"a", 1})), "scp claim holds a number"},
		{"not a JWT", "abc.def", "not a JWT"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tc.token, nil)
			if err == nil || !errors.Is(err, auth.ErrInvalidToken) {
				t.Fatalf("token accepted or not refused as invalid: %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("reason %q does not say %q", err, tc.want)
			}
		})
	}
	t.Run("within the clock skew", func(t *testing.T) {
		tok := oidctest.Sign(t, rsa, with("exp", now.Add(-10*time.Second).Unix()))
		if _, err := v.Verify(context.Background(), tok, nil); err != nil {
			t.Fatalf("token expired 10s ago refused with a 30s skew: %v", err)
		}
	})
	t.Run("signature by another key under a published kid", func(t *testing.T) {
		forged := iss.NewKey(t, rsa.ID)
		_, err := v.Verify(context.Background(), oidctest.Sign(t, forged, valid()), nil)
		if err == nil || !strings.Contains(err.Error(), "does not verify") {
			t.Fatalf("forged signature: %v", err)
		}
	})
}

func TestOAuthVerifierKeyRotation(t *testing.T) {
	iss := oidctest.Start(t)
	v := testVerifier(t, iss, 50*time.Millisecond)
	old := iss.Keys()
	if _, err := v.Verify(context.Background(), oidctest.Sign(t, old[1], iss.Valid(testAudience, "u")), nil); err != nil {
		t.Fatal(err)
	}
	fresh := iss.Rotate(t)
	time.Sleep(60 * time.Millisecond)
	for _, k := range fresh {
		if _, err := v.Verify(context.Background(), oidctest.Sign(t, k, iss.Valid(testAudience, "u")), nil); err != nil {
			t.Fatalf("token signed with the rotated-in key %s refused: %v", k.ID, err)
		}
	}
	_, err := v.Verify(context.Background(), oidctest.Sign(t, old[0], iss.Valid(testAudience, "u")), nil)
	if err == nil || !strings.Contains(err.Error(), "no signing key") {
		t.Fatalf("token signed with a rotated-out key: %v", err)
	}
}

// A flood of tokens naming made-up key ids costs the issuer one fetch per
// interval, not one per token.
func TestOAuthVerifierUnknownKidsDoNotHammerTheIssuer(t *testing.T) {
	iss := oidctest.Start(t)
	v := testVerifier(t, iss, time.Hour)
	rsa := iss.Keys()[0]
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := *rsa
			k.ID = fmt.Sprintf("bogus-%d", i)
			_, _ = v.Verify(context.Background(), oidctest.Sign(t, &k, iss.Valid(testAudience, "u")), nil)
		}()
	}
	wg.Wait()
	if n := iss.JWKSFetches.Load(); n != 1 {
		t.Fatalf("the issuer's JWKS was fetched %d times for 200 unknown kids; want 1", n)
	}
}

func TestOAuthGateAnswers(t *testing.T) {
	iss := oidctest.Start(t)
	v := testVerifier(t, iss, time.Millisecond)
	rsa := iss.Keys()[0]
	g := &Gate{Realm: "srv", Verifier: v.Verify, OAuth: &v.cfg, Scopes: []string{"mcp"}, Supported: []string{"items:read", "mcp"}, Title: "Srv"}
	mux := http.NewServeMux()
	mux.Handle("/mcp", g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })))
	mux.HandleFunc("GET "+PRMPath+"/", g.Metadata)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(token string) *http.Response {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	meta := srv.URL + PRMPath + "/mcp"
	if r := get(""); r.StatusCode != 401 || r.Header.Get("WWW-Authenticate") != `Bearer realm="srv", resource_metadata="`+meta+`"` {
		t.Fatalf("no token: %d %q", r.StatusCode, r.Header.Get("WWW-Authenticate"))
	}
	bad := oidctest.Sign(t, rsa, iss.Valid("https://other/mcp", "u", "mcp"))
	if r := get(bad); r.StatusCode != 401 || !strings.Contains(r.Header.Get("WWW-Authenticate"), `error="invalid_token", error_description="the token is for [`) {
		t.Fatalf("wrong audience: %d %q", r.StatusCode, r.Header.Get("WWW-Authenticate"))
	}
	noScope := oidctest.Sign(t, rsa, iss.Valid(testAudience, "u", "items:read"))
	if r := get(noScope); r.StatusCode != 403 || r.Header.Get("WWW-Authenticate") != `Bearer realm="srv", error="insufficient_scope", scope="mcp", resource_metadata="`+meta+`"` {
		t.Fatalf("missing scope: %d %q", r.StatusCode, r.Header.Get("WWW-Authenticate"))
	}
	if r := get(oidctest.Sign(t, rsa, iss.Valid(testAudience, "u", "mcp"))); r.StatusCode != 200 {
		t.Fatalf("valid token: %d", r.StatusCode)
	}
	// The issuer down before any key was fetched: 503, not 401.
	iss2 := oidctest.Start(t)
	iss2.SetDown(true)
	v2 := testVerifier(t, iss2, time.Millisecond)
	g.Verifier = v2.Verify
	mux2 := http.NewServeMux()
	mux2.Handle("/mcp", g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	srv2 := httptest.NewServer(mux2)
	defer srv2.Close()
	req, _ := http.NewRequest("POST", srv2.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+oidctest.Sign(t, iss2.Keys()[0], iss2.Valid(testAudience, "u", "mcp")))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || string(body) != unavailableBody {
		t.Fatalf("issuer down: %d %q %q", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	// The issuer not even listening: the caller reads that the
	// authorization server is unavailable, not the network error (which
	// names internal hosts and ports); the log has it.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	var logged strings.Builder
	o := OAuth{Issuer: closed.URL, Audience: testAudience, KeysMinInterval: time.Millisecond}
	v3 := NewVerifier(o, slog.New(slog.NewJSONHandler(&syncWriter{w: &logged}, nil)), time.Now)
	g.Verifier, g.OAuth = v3.Verify, &v3.cfg
	srv3 := httptest.NewServer(g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	defer srv3.Close()
	req, _ = http.NewRequest("POST", srv3.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+oidctest.Sign(t, iss2.Keys()[0], iss2.Valid(testAudience, "u", "mcp")))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || string(body) != unavailableBody {
		t.Fatalf("issuer unreachable: %d %q", resp.StatusCode, body)
	}
	if !strings.Contains(logged.String(), "discovery at the issuer "+closed.URL) {
		t.Fatalf("the server's log does not say why: %s", logged.String())
	}
}

// syncWriter serializes writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// TestHS256Verifier: a development token verifies with its secret and an
// expiry; a forged, expired or mistyped one is refused for what it is.
func TestHS256Verifier(t *testing.T) {
	secret := []byte("s3cret-for-tests-of-32-bytes-or-more")
	verify := HS256Verifier(secret)
	now := time.Now()
	valid := func() oidctest.Claims {
		return oidctest.Claims{"sub": "u1", "customer_id": "c1", "scope": "a b", "exp": now.Add(time.Hour).Unix()}
	}
	with := func(k string, v any) oidctest.Claims { c := valid(); c[k] = v; return c }
	info, err := verify(context.Background(), oidctest.HS256(t, secret, valid()), nil)
	if err != nil || info.UserID != "u1" || info.Extra["customer_id"] != "c1" || strings.Join(info.Scopes, " ") != "a b" {
		t.Fatalf("valid token: %+v, %v", info, err)
	}
	rsa := oidctest.Start(t).Keys()[0]
	if _, err := HS256Verifier([]byte("short"))(context.Background(), oidctest.HS256(t, secret, valid()), nil); err == nil || !strings.Contains(err.Error(), "has 5 bytes, fewer than the 32") {
		t.Errorf("a short secret: %v", err)
	}
	for _, tc := range []struct{ name, token, want string }{
		{"another secret", oidctest.HS256(t, []byte("another-secret-of-32-bytes-or-more"), valid()), "signature does not verify"},
		{"expired", oidctest.HS256(t, secret, with("exp", now.Add(-time.Minute).Unix())), "expired at"},
		{"no expiry", oidctest.HS256(t, secret, with("exp", nil)), "no expiry"},
		{"exp a string", oidctest.HS256(t, secret, with("exp", "tomorrow")), "claim exp must be a number"},
		{"sub a number", oidctest.HS256(t, secret, with("sub", 7)), "claim sub must be a string"},
		{"alg none", oidctest.Unsigned("", valid()), "not a JWT signed with HS256"},
		{"RS256", oidctest.Sign(t, rsa, valid()), "not a JWT signed with HS256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := verify(context.Background(), tc.token, nil)
			if err == nil || !errors.Is(err, auth.ErrInvalidToken) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("refusal %v does not say %q", err, tc.want)
			}
		})
	}
}

func TestOAuthConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		o    OAuth
		want string
	}{
		{OAuth{Issuer: "http://idp.example.com", Audience: "a"}, "must use https (http only on a loopback host)"},
		{OAuth{Issuer: "idp.example.com", Audience: "a"}, "not an absolute URL"},
		{OAuth{Issuer: "https://idp.example.com"}, "set --oauth-audience (X_OAUTH_AUDIENCE)"},
		{OAuth{Issuer: "https://idp.example.com", Audience: "a", JWKSURL: "ftp://x/keys"}, "the JWKS URL \"ftp://x/keys\""},
		{OAuth{Issuer: "https://idp.example.com", Audience: "a", ClockSkew: time.Hour}, "between 0s and 5m0s"},
		{OAuth{Issuer: "https://idp.example.com", Audience: "a", Resource: "/mcp"}, "--public-url"},
	} {
		err := tc.o.Check("X")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
}
