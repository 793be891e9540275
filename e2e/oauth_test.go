package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/internal/oidctest"
	"github.com/tailormcp/tailor/internal/testkit"
)

// The back-office server as an OAuth 2.1 resource server: tokens from a
// loopback issuer the test runs (discovery document and JWKS, keys the
// test generates), verified against its keys; per-tool scopes from the
// overlay; Protected Resource Metadata and the challenges of RFC 6750 and
// RFC 9728. Every scenario runs on the generated server and on tailor
// serve.

// backofficeAudience is the audience the back-office server is configured
// with in these tests.
const backofficeAudience = "https://backoffice.example.com/mcp"

// allBackofficeScopes are the scopes the example overlay gives its tools.
const allBackofficeScopes = "orders:read orders:write refunds:write returns:write"

func oauthEnv(rig *shopRig, iss *oidctest.Issuer) []string {
	return []string{"BACKOFFICE_BASE_URL=" + rig.url, "BACKOFFICE_OAUTH_ISSUER=" + iss.URL, "BACKOFFICE_OAUTH_AUDIENCE=" + backofficeAudience}
}

// withToken is an HTTP client that sends token as its bearer token.
func withToken(token string) *http.Client {
	return &http.Client{Transport: headerRoundTripper{"Authorization": "Bearer " + token}}
}

// customerToken is a valid token of the issuer for customer Wang.
func customerToken(t *testing.T, iss *oidctest.Issuer, key *oidctest.Key, scopes string) string {
	c := iss.Valid(backofficeAudience, "agent-7")
	c["customer_id"] = backend.Wang
	if scopes != "" {
		c["scope"] = scopes
	}
	return oidctest.Sign(t, key, c)
}

// initialize POSTs an MCP initialize with authorization auth ("" for
// none) and returns the answer's status, challenge and body.
func initialize(t *testing.T, endpoint, auth string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), strings.TrimSpace(string(body))
}

func toolNames(t *testing.T, s *testkit.Server) []string {
	t.Helper()
	res, err := s.Session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// TestOAuthResourceServer: every key kind verifies; identity comes from
// the token's claim; a token lacking a tool's scope does not see it and
// is refused calling it, with nothing sent; every kind of bad token gets
// 401 with the challenge naming the reason and the metadata; the
// metadata document names the issuer and the scopes; a rotated key is
// picked up; the request id reaches the backend and the audit record.
func TestOAuthResourceServer(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			iss := oidctest.Start(t)
			rig := newShop(t)
			bin, pre := sv.command(t)
			srv := testkit.RunHTTP(t, bin, oauthEnv(rig, iss), append(pre, "--stateless")...)
			base := strings.TrimSuffix(srv.Endpoint, "/mcp")
			keys := iss.Keys()

			// Each key kind, all scopes: every tool, identity from the claim.
			for _, k := range keys {
				s := srv.Connect(t, withToken(customerToken(t, iss, k, allBackofficeScopes)), nil)
				eq(t, string(k.Alg)+": tools", strings.Join(toolNames(t, s), ","), "create_return,get_order,order_status,quote_refund,refund_items,update_shipping_address")
				res := s.Call(t, "get_order", map[string]any{"order_id": "5531"})
				eq(t, string(k.Alg)+": isError", res.IsError, false)
				contains(t, testkit.Text(res), "Order 5531")
			}
			calls := rig.shop.Calls()
			last := calls[len(calls)-1]
			eq(t, "the backend saw the claim's customer", last.CustomerID, backend.Wang)
			if len(last.RequestID) != 16 {
				t.Errorf("the backend saw X-Request-Id %q", last.RequestID)
			}
			auditLines(t, srv, "get_order", 1, `"request_id":"`+last.RequestID+`"`)

			// Identity by the same policy as every verified token: the claim,
			// typed; a header never stands in for it.
			for _, c := range []struct {
				name  string
				claim any
				want  string
			}{
				{"no claim", nil, "This session has no customer_id: the server takes it from the customer_id claim of the caller's verified token, and none was provided"},
				{"a number", 42, "the customer_id claim of the caller's token is a number, not a string"},
				{"an array", []any{backend.Wang}, "is an array, not a string"},
			} {
				claims := iss.Valid(backofficeAudience, "agent-7", "orders:read")
				if c.claim != nil {
					claims["customer_id"] = c.claim
				}
				hc := &http.Client{Transport: headerRoundTripper{"Authorization": "Bearer " + oidctest.Sign(t, keys[0], claims), "X-Customer-Id": backend.Lee}}
				before := len(rig.shop.Calls())
				res := srv.Connect(t, hc, nil).Call(t, "get_order", map[string]any{"order_id": "5531"})
				eq(t, c.name+": isError", res.IsError, true)
				contains(t, testkit.Text(res), c.want)
				eq(t, c.name+": backend calls", len(rig.shop.Calls()), before)
			}

			// Read-only scope: the writing tools are not listed, and a call
			// to one is refused as a result, with nothing sent.
			reader := srv.Connect(t, withToken(customerToken(t, iss, keys[1], "orders:read")), nil)
			eq(t, "reader's tools", strings.Join(toolNames(t, reader), ","), "get_order,order_status")
			before := len(rig.shop.Calls())
			res := reader.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}})
			eq(t, "scope refusal: isError", res.IsError, true)
			contains(t, testkit.Text(res), "The caller's access token does not grant the scopes refunds:write, which quote_refund needs, so nothing was done.", "sign in again")
			eq(t, "backend calls after the refusal", len(rig.shop.Calls()), before)
			auditLines(t, srv, "quote_refund", 1, `"messages":["scope_missing"]`, `"outcome":"error"`)
			srv.WaitStderr(t, "the scope refusal logged with the call's request id", func(s string) bool {
				return regexp.MustCompile(`"msg":"call refused","request_id":"[0-9a-f]{16}","tool":"quote_refund","refusal":"scope_missing","scopes":"refunds:write"`).MatchString(s)
			})
			none := srv.Connect(t, withToken(customerToken(t, iss, keys[2], "")), nil)
			eq(t, "no scopes: tools", len(toolNames(t, none)), 0)

			// Bad tokens: 401, the challenge says why and where the metadata is.
			meta := base + "/.well-known/oauth-protected-resource/mcp"
			valid := func() oidctest.Claims {
				c := iss.Valid(backofficeAudience, "agent-7", "orders:read")
				c["customer_id"] = backend.Wang
				return c
			}
			with := func(k string, v any) oidctest.Claims { c := valid(); c[k] = v; return c }
			now := time.Now()
			code, challenge, _ := initialize(t, srv.Endpoint, "")
			eq(t, "no token: status", code, http.StatusUnauthorized)
			eq(t, "no token: challenge", challenge, `Bearer realm="backoffice", resource_metadata="`+meta+`"`)
			for _, c := range []struct{ name, token, reason string }{
				{"wrong audience", oidctest.Sign(t, keys[0], with("aud", "https://other.example.com/mcp")), "the token is for ['https://other.example.com/mcp'], not for this server ('" + backofficeAudience + "')"},
				{"wrong issuer", oidctest.Sign(t, keys[0], with("iss", "https://evil.example.com")), "the token was issued by 'https://evil.example.com', not by '" + iss.URL + "'"},
				{"expired", oidctest.Sign(t, keys[1], with("exp", now.Add(-5*time.Minute).Unix())), "the token expired at"},
				{"not yet valid", oidctest.Sign(t, keys[2], with("nbf", now.Add(5*time.Minute).Unix())), "the token is not valid before"},
				{"unknown kid", oidctest.Sign(t, iss.NewKey(t, "kid-nobody-published"), valid()), "the issuer publishes no signing key with id 'kid-nobody-published'"},
				{"alg none", oidctest.Unsigned(keys[0].ID, valid()), "the token is not a JWT signed with an accepted algorithm"},
				{"HS256 keyed with the public key", oidctest.HS256WithPublicKey(t, keys[0], valid()), "the token is not a JWT signed with an accepted algorithm"},
			} {
				code, challenge, body := initialize(t, srv.Endpoint, "Bearer "+c.token)
				eq(t, c.name+": status", code, http.StatusUnauthorized)
				contains(t, challenge, `Bearer realm="backoffice", error="invalid_token", error_description="`+c.reason, `resource_metadata="`+meta+`"`)
				if strings.Contains(body, "jsonrpc") {
					t.Errorf("%s: the request reached the MCP server: %s", c.name, body)
				}
			}
			srv.WaitStderr(t, "refusals logged with their reasons", func(s string) bool {
				return strings.Contains(s, `"msg":"bearer token refused","reason":"the token is for [\"https://other.example.com/mcp\"]`) &&
					strings.Contains(s, `"reason":"the issuer publishes no signing key with id \"kid-nobody-published\""`)
			})

			// The Protected Resource Metadata (RFC 9728), at the path-
			// inserted and the root well-known URL alike.
			for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
				code, body := probe(t, srv, path)
				eq(t, path+": status", code, http.StatusOK)
				var doc map[string]any
				if err := json.Unmarshal([]byte(body), &doc); err != nil {
					t.Fatalf("%s: %v: %s", path, err, body)
				}
				eq(t, path+": resource", doc["resource"], any(srv.Endpoint))
				eq(t, path+": authorization_servers", jsonText(doc["authorization_servers"]), `["`+iss.URL+`"]`)
				eq(t, path+": scopes_supported", jsonText(doc["scopes_supported"]), `["orders:read","orders:write","refunds:write","returns:write"]`)
				eq(t, path+": bearer_methods_supported", jsonText(doc["bearer_methods_supported"]), `["header"]`)
				eq(t, path+": resource_name", doc["resource_name"], any("Shop back office"))
			}

			// Key rotation: tokens signed with the new keys are accepted once
			// the server refetches the set (at most every 5 s, whatever the
			// number of unknown key ids); the old keys are gone.
			fresh := iss.Rotate(t)
			deadline := time.Now().Add(10 * time.Second)
			for {
				code, _, _ := initialize(t, srv.Endpoint, "Bearer "+customerToken(t, iss, fresh[2], "orders:read"))
				if code == http.StatusOK {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("a token signed with the rotated-in key is still refused (%d)", code)
				}
				time.Sleep(250 * time.Millisecond)
			}
			s := srv.Connect(t, withToken(customerToken(t, iss, fresh[0], "orders:read")), nil)
			eq(t, "after rotation: isError", s.Call(t, "get_order", map[string]any{"order_id": "5531"}).IsError, false)
			code, challenge, _ = initialize(t, srv.Endpoint, "Bearer "+customerToken(t, iss, keys[0], "orders:read"))
			eq(t, "rotated-out key: status", code, http.StatusUnauthorized)
			contains(t, challenge, "no signing key with id '"+keys[0].ID+"'")
			if n := iss.JWKSFetches.Load(); n > 4 {
				t.Errorf("the JWKS was fetched %d times", n)
			}
		})
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestOAuthIssuerUnreachable: a server whose issuer does not answer
// starts, reports not ready, and answers tokens 503 (the token may be
// fine); once the issuer answers, tokens are verified again.
func TestOAuthIssuerUnreachable(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			iss := oidctest.Start(t)
			iss.SetDown(true)
			rig := newShop(t)
			bin, pre := sv.command(t)
			srv := testkit.RunHTTP(t, bin, oauthEnv(rig, iss), append(pre, "--stateless")...)
			token := customerToken(t, iss, iss.Keys()[0], "orders:read")
			code, _, body := initialize(t, srv.Endpoint, "Bearer "+token)
			eq(t, "issuer down: status", code, http.StatusServiceUnavailable)
			contains(t, body, "the authorization server is unavailable", "try again")
			if strings.Contains(body, iss.URL) || strings.Contains(body, "discovery") {
				t.Errorf("the 503 shows the caller the internal error: %q", body)
			}
			contains(t, waitReady(t, srv, http.StatusServiceUnavailable), `{"name":"identity provider","ok":false,"error":"failing (the server's log says why)"}`)
			srv.WaitStderr(t, "the failed fetch logged", func(s string) bool {
				return strings.Contains(s, `"msg":"the identity provider's keys could not be fetched; tokens signed with keys not already held are refused until they can be"`)
			})

			iss.SetDown(false)
			deadline := time.Now().Add(10 * time.Second)
			for {
				if code, _, _ := initialize(t, srv.Endpoint, "Bearer "+token); code == http.StatusOK {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("tokens still refused after the issuer came back")
				}
				time.Sleep(250 * time.Millisecond)
			}
			waitReady(t, srv, http.StatusOK)
			srv.WaitStderr(t, "the keys fetched", func(s string) bool { return strings.Contains(s, `"msg":"identity provider keys fetched"`) })
		})
	}
}

// TestOAuthConfiguration: settings that cannot work stop the server at
// start, naming the setting.
func TestOAuthConfiguration(t *testing.T) {
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"BACKOFFICE_OAUTH_ISSUER=http://idp.example.com"}, []string{"--http", "127.0.0.1:0", "--oauth-audience", "a"}, "the issuer \"http://idp.example.com\" (--oauth-issuer, BACKOFFICE_OAUTH_ISSUER): must use https (http only on a loopback host)"},
		{[]string{"BACKOFFICE_OAUTH_ISSUER=https://idp.example.com"}, []string{"--http", "127.0.0.1:0"}, "set --oauth-audience (BACKOFFICE_OAUTH_AUDIENCE)"},
		{[]string{"BACKOFFICE_OAUTH_ISSUER=https://idp.example.com", "BACKOFFICE_OAUTH_AUDIENCE=a"}, nil, "--oauth-issuer verifies the bearer tokens of HTTP requests; it needs --http"},
		{[]string{"BACKOFFICE_OAUTH_ISSUER=https://idp.example.com", "BACKOFFICE_OAUTH_AUDIENCE=a", "BACKOFFICE_TOKEN_HS256_SECRET=s3cret-dev-of-at-least-32-bytes-long"}, []string{"--http", "127.0.0.1:0"}, "--oauth-issuer and BACKOFFICE_TOKEN_HS256_SECRET are both set"},
		{[]string{"BACKOFFICE_TOKEN_HS256_SECRET=s3cret-dev"}, []string{"--http", "127.0.0.1:0"}, "BACKOFFICE_TOKEN_HS256_SECRET has 10 bytes; HS256 needs a secret of at least 32 bytes"},
		{[]string{"BACKOFFICE_OAUTH_AUDIENCE=a"}, []string{"--http", "127.0.0.1:0"}, "--oauth-audience is set, but no issuer"},
		{[]string{"BACKOFFICE_OAUTH_ISSUER=https://idp.example.com", "BACKOFFICE_OAUTH_AUDIENCE=a", "BACKOFFICE_OAUTH_CLOCK_SKEW=1h"}, []string{"--http", "127.0.0.1:0"}, "must be between 0s and 5m0s"},
		{nil, []string{"--http", "127.0.0.1:0", "--oauth-scopes", "mcp"}, "--oauth-scopes needs verified tokens"},
	} {
		for _, sv := range backofficeServers() {
			code, out := runServer(t, sv, c.env, c.args...)
			eq(t, sv.kind+": "+c.want+": exit code", code, 2)
			contains(t, out, c.want)
		}
	}
}

// TestOAuthRequiredScopes: --oauth-scopes is checked on every request,
// before the MCP server: 403 with the insufficient_scope challenge.
func TestOAuthRequiredScopes(t *testing.T) {
	sv := backofficeServers()[1]
	iss := oidctest.Start(t)
	rig := newShop(t)
	bin, pre := sv.command(t)
	srv := testkit.RunHTTP(t, bin, append(oauthEnv(rig, iss), "BACKOFFICE_PUBLIC_URL="+backofficeAudience), append(pre, "--stateless", "--oauth-scopes", "mcp:use")...)
	code, challenge, _ := initialize(t, srv.Endpoint, "Bearer "+customerToken(t, iss, iss.Keys()[0], "orders:read"))
	eq(t, "status", code, http.StatusForbidden)
	eq(t, "challenge", challenge, `Bearer realm="backoffice", error="insufficient_scope", scope="mcp:use", resource_metadata="https://backoffice.example.com/.well-known/oauth-protected-resource/mcp"`)
	s := srv.Connect(t, withToken(customerToken(t, iss, iss.Keys()[0], "mcp:use orders:read")), &mcp.ClientOptions{})
	eq(t, "with the scope: tools", strings.Join(toolNames(t, s), ","), "get_order,order_status")
	_, body := probe(t, srv, "/.well-known/oauth-protected-resource/mcp")
	contains(t, body, `"resource":"`+backofficeAudience+`"`, `"mcp:use"`)
}

// TestOAuthScopesInDynamicMode: the token's scopes are a rule of the same
// selection as --read-only, so the discovery tools neither find, describe
// nor call a tool the token lacks a scope for, and nothing reaches the
// backend; a token with the scope calls it through call_tool.
func TestOAuthScopesInDynamicMode(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			iss := oidctest.Start(t)
			rig := newShop(t)
			bin, pre := sv.command(t)
			srv := testkit.RunHTTP(t, bin, oauthEnv(rig, iss), append(pre, "--stateless", "--dynamic")...)
			keys := iss.Keys()

			reader := srv.Connect(t, withToken(customerToken(t, iss, keys[0], "orders:read")), nil)
			eq(t, "start", strings.Join(toolNames(t, reader), ","), metaTools)
			text := testkit.Text(reader.Call(t, "search_tools", map[string]any{"query": "refund"}))
			if strings.Contains(text, "quote_refund") || strings.Contains(text, "refund_items") {
				t.Fatalf("search shows tools the token lacks scopes for: %s", text)
			}
			eq(t, "toolsets without scope", strings.Contains(testkit.Text(reader.Call(t, "list_toolsets", nil)), "refunds"), false)
			res := reader.Call(t, "describe_tool", map[string]any{"name": "quote_refund"})
			eq(t, "describe refused", res.IsError, true)
			res = reader.Call(t, "call_tool", map[string]any{"name": "quote_refund", "arguments": map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}}})
			eq(t, "call_tool refused", res.IsError, true)
			contains(t, testkit.Text(res), "does not grant the scopes refunds:write, which quote_refund needs")
			eq(t, "backend calls", len(rig.shop.Calls()), 0)

			writer := srv.Connect(t, withToken(customerToken(t, iss, keys[1], allBackofficeScopes)), nil)
			res = writer.Call(t, "call_tool", map[string]any{"name": "quote_refund", "arguments": map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}}})
			eq(t, "call_tool with the scope: isError", res.IsError, false)
			eq(t, "backend calls", len(rig.shop.Calls()), 1)
		})
	}
}
