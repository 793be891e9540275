package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/internal/testkit"
)

const tokenSecret = "hostile-suite-token-secret-of-32-bytes"

func bearer(t *testing.T, claims map[string]any) string {
	t.Helper()
	claims["exp"] = time.Now().Add(time.Hour).Unix()
	if _, ok := claims["scope"]; !ok {
		claims["scope"] = allBackofficeScopes
	}
	return "Bearer " + signHS256(t, tokenSecret, claims)
}

// orderReads lists the customer id of every GET of order 5531 the shop
// received.
func orderReads(rig *shopRig) []string {
	var ids []string
	for _, c := range rig.shop.Calls() {
		if c.Method == http.MethodGet && c.Path == "/orders/5531" {
			ids = append(ids, c.CustomerID)
		}
	}
	return ids
}

// TestHostileIdentity: with bearer tokens verified, the token's claim is
// the identity: a spoofed header does not override it, a token without the
// claim does not fall back to the header or the environment, and a claim
// that is not a string is refused, not turned into text. The operator may
// let unverified sources fill a claim the token lacks.
func TestHostileIdentity(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			bin, pre := sv.command(t)
			env := []string{"BACKOFFICE_BASE_URL=" + rig.url, "BACKOFFICE_TOKEN_HS256_SECRET=" + tokenSecret, "BACKOFFICE_CUSTOMER_ID=" + backend.Lee}
			as := func(claims map[string]any) *http.Client {
				return &http.Client{Transport: headerRoundTripper{"Authorization": bearer(t, claims), "X-Customer-Id": backend.Lee}}
			}
			srv := testkit.StartHTTPClient(t, bin, env, as(map[string]any{"customer_id": backend.Wang}), pre...)
			getOrder := func(s *testkit.Server) (bool, string) {
				res := s.Call(t, "get_order", map[string]any{"order_id": "5531"})
				return res.IsError, testkit.Text(res)
			}

			isErr, text := getOrder(srv)
			eq(t, "claim beats a spoofed header: isError", isErr, false)
			contains(t, text, "Order 5531")
			eq(t, "the backend saw", strings.Join(orderReads(rig), ","), backend.Wang)
			rec := lastFinal(audits(t, srv, "get_order", 1))
			eq(t, "audit: identity", rec.Identity["customer_id"], any(backend.Wang))

			for _, c := range []struct {
				name   string
				claims map[string]any
				want   string
			}{
				{"no claim", map[string]any{"sub": "u1"}, "This session has no customer_id: the server takes it from the customer_id claim of the caller's verified token, and none was provided"},
				{"a number", map[string]any{"customer_id": 42}, "the customer_id claim of the caller's token is a number, not a string"},
				{"an object", map[string]any{"customer_id": map[string]any{"id": backend.Wang}}, "is an object, not a string"},
				{"an array", map[string]any{"customer_id": []any{backend.Wang}}, "is an array, not a string"},
			} {
				s := srv.Connect(t, as(c.claims), nil)
				isErr, text := getOrder(s)
				eq(t, c.name+": isError", isErr, true)
				contains(t, text, c.want, "sent to the API")
				if strings.Contains(text, "map[") || strings.Contains(text, backend.Lee) {
					t.Errorf("%s: %s", c.name, text)
				}
				eq(t, c.name+": the backend saw", strings.Join(orderReads(rig), ","), backend.Wang)
			}

			// Without a valid token nothing reaches a tool, and the client is
			// told a bearer token is expected.
			for _, auth := range []string{"", "Bearer " + signHS256(t, "another-secret-of-32-bytes-or-more", map[string]any{"customer_id": backend.Wang, "exp": time.Now().Add(time.Hour).Unix()})} {
				req, _ := http.NewRequest(http.MethodPost, srv.Endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				eq(t, "status", resp.StatusCode, http.StatusUnauthorized)
				want := `Bearer realm="backoffice"`
				if auth != "" {
					want += `, error="invalid_token"`
				}
				eq(t, "WWW-Authenticate", resp.Header.Get("WWW-Authenticate"), want)
			}

			// The operator allows unverified sources: they fill only a claim
			// the token lacks.
			lax := testkit.StartHTTPClient(t, bin, env, as(map[string]any{"sub": "u1"}), append(pre, "--allow-unverified-context")...)
			isErr, _ = getOrder(lax)
			eq(t, "unverified allowed, no claim: isError", isErr, true) // 5531 is not Lee's order
			eq(t, "the backend saw the header", orderReads(rig)[len(orderReads(rig))-1], backend.Lee)
			isErr, _ = getOrder(lax.Connect(t, as(map[string]any{"customer_id": backend.Wang}), nil))
			eq(t, "unverified allowed, with the claim: isError", isErr, false)
			eq(t, "the backend saw the claim", orderReads(rig)[len(orderReads(rig))-1], backend.Wang)
		})
	}
}
