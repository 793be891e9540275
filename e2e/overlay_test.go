package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tailormcp/tailor/internal/oidctest"
	"github.com/tailormcp/tailor/internal/testkit"
)

// curatedServers are the curated shop tool set (testdata/e2e/shop/overlay.yaml),
// generated and served.
func curatedServers() []server { return curated.servers() }

func curatedEnv(backend string) []string {
	return []string{"SHOPC_BASE_URL=" + backend + "/api", "SHOPC_API_KEY=" + apiKey, "SHOPC_QUERY_KEY=qk"}
}

// TestOverlayToolSet checks what the model is offered after curation.
func TestOverlayToolSet(t *testing.T) {
	for _, sv := range curatedServers() {
		t.Run(sv.kind, func(t *testing.T) { testOverlayToolSet(t, sv) })
	}
}

func testOverlayToolSet(t *testing.T, sv server) {
	srv := sv.stdio(t, curatedEnv("http://127.0.0.1:1"))
	res, err := srv.Session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	schemas := map[string]string{}
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		b, _ := json.Marshal(tl.InputSchema)
		schemas[tl.Name] = string(b)
	}
	eq(t, "tools", strings.Join(names, ","), "find_order,open_orders,refund")
	eq(t, "find_order input", schemas["find_order"],
		`{"additionalProperties":false,"properties":{"order_number":{"description":"Order number as the customer gives it, e.g. \"5531\".","type":"string"}},"required":["order_number"],"type":"object"}`)
	for _, hidden := range []string{"expand", "X-Request-Id", "session", "order_id"} {
		if strings.Contains(schemas["find_order"], `"`+hidden+`"`) {
			t.Errorf("find_order exposes %s to the model", hidden)
		}
	}
	// Listed in strict form: optional, so nullable; its default said in words.
	contains(t, schemas["open_orders"], `"limit":{"description":"Default: 5.","maximum":20,"minimum":1,"type":["integer","null"]}`)
	for _, hidden := range []string{`"status"`, `"filter"`, `"where"`} {
		if strings.Contains(schemas["open_orders"], hidden) {
			t.Errorf("open_orders exposes %s", hidden)
		}
	}
	init := srv.Session.InitializeResult()
	eq(t, "instructions", init.Instructions, "Tools for support agents helping the signed-in customer with their orders.")
}

// TestOverlayCalls drives the curated tools and asserts on what the backend
// received and what the model reads.
func TestOverlayCalls(t *testing.T) {
	for _, sv := range curatedServers() {
		t.Run(sv.kind, func(t *testing.T) { testOverlayCalls(t, sv) })
	}
}

func testOverlayCalls(t *testing.T, sv server) {
	backend := testkit.NewBackend(t, nil)
	hc := &http.Client{Transport: headerRoundTripper{"X-Customer-Id": "cust_42"}}
	srv := sv.http(t, curatedEnv(backend.URL), hc)

	t.Run("renamed, fixed and injected parameters; projection and text", func(t *testing.T) {
		backend.Handle(jsonReply(200, `{"order_id":"5531","status":"open","total":1430,"note":"gift","items":[{"line_item_id":"li_1","price":1200},{"line_item_id":"li_2","price":380}]}`))
		res := srv.Call(t, "find_order", map[string]any{"order_number": "5531"})
		got := backend.Last(t)
		eq(t, "path", got.RawPath, "/api/orders/5531")
		eq(t, "fixed query", got.Query, "expand=items")
		eq(t, "injected header", got.Header.Get("X-Request-Id"), "cust_42")
		eq(t, "no cookie", got.Header.Get("Cookie"), "")
		eq(t, "isError", res.IsError, false)
		text := testkit.Text(res)
		contains(t, text, "Order 5531 is open: 2 items, total 1,430.",
			`{"items":[{"line_item_id":"li_1"},{"line_item_id":"li_2"}],"order_id":"5531","status":"open","total":1430}`)
		if strings.Contains(text, "gift") || strings.Contains(text, "1200") {
			t.Errorf("projection kept dropped fields:\n%s", text)
		}
		eq(t, "structured", testkit.Structured(res), `{"items":[{"line_item_id":"li_1"},{"line_item_id":"li_2"}],"order_id":"5531","status":"open","total":1430}`)
	})

	t.Run("the model cannot supply a hidden parameter", func(t *testing.T) {
		backend.Take()
		res := srv.Call(t, "find_order", map[string]any{"order_number": "1", "X-Request-Id": "evil"})
		eq(t, "isError", res.IsError, true)
		contains(t, testkit.Text(res), "X-Request-Id")
		eq(t, "sent", len(backend.Take()), 0)
	})

	t.Run("error rule by status", func(t *testing.T) {
		backend.Handle(jsonReply(404, `{"message":"not found"}`))
		res := srv.Call(t, "find_order", map[string]any{"order_number": "77"})
		eq(t, "isError", res.IsError, true)
		eq(t, "text", testkit.Text(res), "There is no order 77 for this customer. Ask for the number shown on the order page.")
	})

	t.Run("defaults and fixed values; drop; results cut to size", func(t *testing.T) {
		var orders []string
		for i := 0; i < 12; i++ {
			orders = append(orders, fmt.Sprintf(`{"order_id":"o%d","status":"open","items":[{"line_item_id":"x"}]}`, i))
		}
		backend.Handle(jsonReply(200, "["+strings.Join(orders, ",")+"]"))
		res := srv.Call(t, "open_orders", nil)
		q, _ := url.ParseQuery(backend.Last(t).Query)
		eq(t, "status", q.Get("status"), "open")
		eq(t, "default limit", q.Get("limit"), "5")
		text := testkit.Text(res)
		if strings.Contains(text, "line_item_id") {
			t.Errorf("drop kept items:\n%s", text)
		}
		contains(t, text, "The result was cut to fit 300 bytes: the result shows", "of 12 items", "Ask for less")
		var s struct{ Items []any }
		json.Unmarshal([]byte(testkit.Structured(res)), &s)
		if n := len(s.Items); n == 0 || n >= 12 {
			t.Errorf("structuredContent has %d orders, want a cut list", n)
		}
		res = srv.Call(t, "open_orders", map[string]any{"limit": 30})
		eq(t, "limit over the overlay's maximum", res.IsError, true)
		contains(t, testkit.Text(res), "`limit`: maximum: got 30, want 20")
	})

	t.Run("error rules in order, by body field, then defaults", func(t *testing.T) {
		args := map[string]any{"order_id": "5531", "amount": 230}
		backend.Handle(jsonReply(409, `{"code":"already_refunded","refund_id":"rf_8801"}`))
		eq(t, "rule 1", testkit.Text(srv.Call(t, "refund", args)), "Order 5531 was already refunded (rf_8801); do not refund it again.")
		backend.Handle(jsonReply(409, `{"code":"locked","message":"order is locked"}`))
		eq(t, "rule 2", testkit.Text(srv.Call(t, "refund", args)), "The refund was refused: order is locked. Nothing was refunded.")
		backend.Handle(jsonReply(503, `{"message":"down"}`))
		contains(t, testkit.Text(srv.Call(t, "refund", args)), "may or may not have taken effect")
	})
}

// TestOverlayMissingContext checks that a call without the caller's
// identity is refused and nothing reaches the backend.
func TestOverlayMissingContext(t *testing.T) {
	for _, sv := range curatedServers() {
		t.Run(sv.kind, func(t *testing.T) { testOverlayMissingContext(t, sv) })
	}
}

func testOverlayMissingContext(t *testing.T, sv server) {
	backend := testkit.NewBackend(t, jsonReply(200, `{"order_id":"1","status":"open","items":[]}`))
	srv := sv.stdio(t, curatedEnv(backend.URL))
	res := srv.Call(t, "find_order", map[string]any{"order_number": "1"})
	eq(t, "isError", res.IsError, true)
	// Over stdio there are no request headers: the environment is the
	// only source that counts.
	contains(t, testkit.Text(res), "This session has no customer", "SHOP_TEST_CUSTOMER", "cannot be given as a tool argument")
	eq(t, "sent", len(backend.Take()), 0)

	withEnv := sv.stdio(t, append(curatedEnv(backend.URL), "SHOP_TEST_CUSTOMER=cust_env"))
	res = withEnv.Call(t, "find_order", map[string]any{"order_number": "1"})
	eq(t, "isError", res.IsError, false)
	eq(t, "from env", backend.Last(t).Header.Get("X-Request-Id"), "cust_env")
}

// TestOverlayTokenClaims checks context values taken from a verified bearer
// token, and that requests without a valid token are refused.
func TestOverlayTokenClaims(t *testing.T) {
	backend := testkit.NewBackend(t, jsonReply(200, `{"order_id":"1","status":"open","items":[]}`))
	env := append(curatedEnv(backend.URL), "SHOPC_TOKEN_HS256_SECRET=s3cret-for-tests-of-32-bytes-or-more")
	token := signHS256(t, "s3cret-for-tests-of-32-bytes-or-more", map[string]any{"sub": "user_9", "customer_id": "cust_from_token", "exp": time.Now().Add(time.Hour).Unix()})
	hc := &http.Client{Transport: headerRoundTripper{"Authorization": "Bearer " + token}}
	srv := testkit.StartHTTPClient(t, curated.binary(t), env, hc)
	res := srv.Call(t, "find_order", map[string]any{"order_number": "1"})
	eq(t, "isError", res.IsError, false)
	eq(t, "from claim", backend.Last(t).Header.Get("X-Request-Id"), "cust_from_token")

	// A forged token never reaches a tool.
	forged := signHS256(t, "another-secret-of-32-bytes-or-more", map[string]any{"customer_id": "cust_x", "exp": time.Now().Add(time.Hour).Unix()})
	endpoint := strings.TrimSuffix(srv.Endpoint, "/mcp") + "/mcp"
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	req.Header.Set("Authorization", "Bearer "+forged)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	eq(t, "forged token status", resp.StatusCode, http.StatusUnauthorized)
}

func signHS256(t *testing.T, secret string, claims map[string]any) string {
	t.Helper()
	return oidctest.HS256(t, []byte(secret), claims)
}
