package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/internal/oidctest"
	"github.com/tailormcp/tailor/internal/redistest"
	"github.com/tailormcp/tailor/internal/testkit"
)

// TestReplicasBehindOAuthIssuer: the deployment docs/deploy.md describes,
// end to end: two replicas of the back-office server sharing Redis,
// behind a round-robin proxy, verifying an OAuth issuer's tokens. The
// customer comes from the token; a quote made through one replica with a
// token is carried out through the other (approval included), once; a
// token without the write scope sees the read tools only, on both; no
// token, no entry. Generated and served.
func TestReplicasBehindOAuthIssuer(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			red := redistest.Start(t, false)
			iss := oidctest.Start(t)
			rig := newShop(t)
			cl := startCluster(t, sv, rig, red, true, "--oauth-issuer", iss.URL, "--oauth-audience", backofficeAudience)
			for _, r := range cl.replicas {
				eq(t, "readyz", waitReady(t, r, http.StatusOK),
					`{"checks":[{"name":"backend","ok":true},{"name":"quote store","ok":true},{"name":"identity provider","ok":true}],"ready":true}`)
			}
			keys := iss.Keys()
			person := &approver{action: "accept"}
			token := customerToken(t, iss, keys[0], allBackofficeScopes)
			a := cl.replicas[0].Connect(t, withToken(token), person.options())
			b := cl.replicas[1].Connect(t, withToken(customerToken(t, iss, keys[2], allBackofficeScopes)), person.options())
			q := quote5531(t, a)
			eq(t, "writes after the quote", writes(rig), 0)
			res := b.Call(t, "refund_items", map[string]any{"quote_id": q})
			eq(t, "confirm on the other replica: isError", res.IsError, false)
			contains(t, testkit.Text(res), "Cancelled shipment of Headphone case ×1; refunded NT$230")
			eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
			eq(t, "prompts", person.asked(), 1)
			for _, c := range rig.shop.Calls() {
				if c.CustomerID != backend.Wang || len(c.RequestID) != 16 {
					t.Errorf("the backend received %+v", c)
				}
			}
			auditLines(t, cl.replicas[1], "refund_items", 1, `"outcome":"ok"`, `"identity":{"customer_id":"cust_wang"}`, `"request_id":"`)
			res = a.Call(t, "refund_items", map[string]any{"quote_id": q})
			contains(t, testkit.Text(res), "Quote "+q+" was already carried out")

			// Through the proxy: a read-only token sees and calls the read
			// tools on either replica, and cannot confirm.
			reader := &testkit.Server{Session: testkit.ConnectHTTP(t, cl.proxy.URL+"/mcp", withToken(customerToken(t, iss, keys[1], "orders:read")), nil), Endpoint: cl.proxy.URL + "/mcp"}
			for range 2 {
				eq(t, "reader's tools", strings.Join(toolNames(t, reader), ","), "get_order,order_status")
				eq(t, "reader: get_order isError", reader.Call(t, "get_order", map[string]any{"order_id": "5531"}).IsError, false)
			}
			q2 := quoteID(t, a.Call(t, "quote_refund", map[string]any{"order_id": "5532", "line_item_ids": []string{"li_3"}}))
			before := writes(rig)
			res = reader.Call(t, "refund_items", map[string]any{"quote_id": q2})
			eq(t, "reader confirms: isError", res.IsError, true)
			contains(t, testkit.Text(res), "does not grant the scopes refunds:write")
			eq(t, "writes after the reader's confirm", writes(rig), before)

			code, challenge, _ := initialize(t, cl.proxy.URL+"/mcp", "")
			eq(t, "no token through the proxy", code, http.StatusUnauthorized)
			contains(t, challenge, `resource_metadata="`)
		})
	}
}
