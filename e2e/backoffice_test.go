package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/testkit"
)

// The back-office story of issue 4, replayed through a real MCP client
// against the example's backend, on the committed generated server and on
// tailor serve. Each scenario asserts on the backend's state and on the
// exact text the model reads.

// exampleServer builds an example's committed server (examples/<name>/
// mcpserver/cmd/<name>) once per test binary.
type exampleServer struct {
	name string
	once sync.Once
	path string
}

func (e *exampleServer) binary(t *testing.T) string {
	t.Helper()
	e.once.Do(func() {
		out := filepath.Join(persistent{t}.TempDir(), e.name)
		cmd := exec.Command("go", "build", "-o", out, "./examples/"+e.name+"/mcpserver/cmd/"+e.name)
		cmd.Dir = testkit.RepoRoot()
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build: %v\n%s", err, b)
		}
		e.path = out
	})
	if e.path == "" {
		t.Fatalf("building the %s example server failed earlier", e.name)
	}
	return e.path
}

var boServer = &exampleServer{name: "backoffice"}

// backofficeBinary builds the committed example server.
func backofficeBinary(t *testing.T) string { return boServer.binary(t) }

func backofficeServers() []server {
	dir := filepath.Join(testkit.RepoRoot(), "examples", "backoffice")
	spec, overlay := filepath.Join(dir, "openapi.yaml"), filepath.Join(dir, "overlay.yaml")
	return []server{
		{kind: "generated", spec: spec, overlay: overlay, name: "backoffice", bin: backofficeBinary},
		{kind: "serve", spec: spec, overlay: overlay, name: "backoffice"},
	}
}

type shopRig struct {
	shop *backend.Shop
	url  string
}

func newShop(t *testing.T) *shopRig {
	shop := backend.New(func() time.Time { return time.Date(2026, 10, 5, 14, 0, 0, 0, time.UTC) })
	srv := httptest.NewServer(shop.Handler())
	t.Cleanup(srv.Close)
	return &shopRig{shop: shop, url: srv.URL}
}

// approver answers elicitations with action and records the questions.
type approver struct {
	mu        sync.Mutex
	action    string
	questions []string
}

// callAtOnce makes n identical calls at the same time and returns their
// results.
func callAtOnce(t *testing.T, srv *testkit.Server, n int, tool string, args map[string]any) []*mcp.CallToolResult {
	t.Helper()
	results := make([]*mcp.CallToolResult, n)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = srv.Call(t, tool, args)
		}()
	}
	wg.Wait()
	return results
}

// asked is how many questions the person was asked.
func (a *approver) asked() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.questions)
}

func (a *approver) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.questions = append(a.questions, req.Params.Message)
		return &mcp.ElicitResult{Action: a.action}, nil
	}}
}

// wang starts a server over stdio for customer Wang (identity from the
// environment) whose client answers approvals with the approver.
func wang(t *testing.T, sv server, rig *shopRig, ap *approver, args ...string) *testkit.Server {
	bin, pre := sv.command(t)
	env := []string{"BACKOFFICE_BASE_URL=" + rig.url, "BACKOFFICE_CUSTOMER_ID=" + backend.Wang}
	var opts *mcp.ClientOptions
	if ap != nil {
		opts = ap.options()
	}
	return testkit.StartStdioClient(t, bin, env, opts, append(pre, args...)...)
}

func quoteID(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	m, _ := res.StructuredContent.(map[string]any)
	id, _ := m["quote_id"].(string)
	if res.IsError || !strings.HasPrefix(id, "q_") {
		t.Fatalf("no quote: %s", testkit.Text(res))
	}
	return id
}

const explanation5531 = "price 380; the kept items (Bluetooth headphones 1,200) are below the coupon's 1,500 threshold, so its 150 discount is taken back"

func TestBackofficeStory(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			ap := &approver{action: "accept"}
			srv := wang(t, sv, rig, ap)

			res := srv.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}})
			q := quoteID(t, res)
			text := testkit.Text(res)
			contains(t, text, "Refund of NT$230 for Headphone case. How: "+explanation5531+".",
				"Quote "+q+", valid until", "Nothing has been done yet", "call refund_items with quote_id "+q)
			eq(t, "nothing changed by the quote", rig.shop.Requests(), 0)

			res = srv.Call(t, "refund_items", map[string]any{"quote_id": q})
			eq(t, "isError", res.IsError, false)
			eq(t, "what the model reads", strings.SplitN(testkit.Text(res), "\n", 2)[0],
				"Cancelled shipment of Headphone case ×1; refunded NT$230 to the original payment method (card ending 4242), refund rf_8801. How: "+explanation5531+".")
			eq(t, "approval question", strings.Join(ap.questions, "|"), "Refund NT$230 to card ending 4242 for order 5531?")
			refunds := rig.shop.Refunds("5531")
			if len(refunds) != 1 || refunds[0].Amount != 230 || refunds[0].RefundID != "rf_8801" {
				t.Fatalf("refunds: %+v", refunds)
			}
			eq(t, "li_2", rig.shop.LineItem("5531", "li_2").Status, "cancelled")
			eq(t, "li_1 untouched", rig.shop.LineItem("5531", "li_1").Status, "delivered")
			var keys []string
			for _, c := range rig.shop.Calls() {
				if c.Method == http.MethodPost && strings.HasSuffix(c.Path, "/refunds") {
					keys = append(keys, c.IdempotencyKey)
				}
			}
			eq(t, "Idempotency-Key", strings.Join(keys, ","), q)

			// The audit log tells the model's choice from the system's computation.
			line := auditLines(t, srv, "refund_items", 1, `"outcome":"ok"`)[0]
			for _, want := range []string{`"msg":"audit"`, `"args":{"quote_id":"` + q + `"}`, `"amount":230`, `"explanation":"` + explanation5531 + `"`, `"created":["rf_8801"]`, `"identity":{"customer_id":"cust_wang"}`, `"approval":"accept"`, `"status":201`} {
				if !strings.Contains(line, want) {
					t.Errorf("the audit record of refund_items lacks %s:\n%s", want, line)
				}
			}

			t.Run("a quote is used once", func(t *testing.T) {
				res := srv.Call(t, "refund_items", map[string]any{"quote_id": q})
				eq(t, "isError", res.IsError, true)
				contains(t, testkit.Text(res), "Quote "+q+" was already carried out", "cannot be used twice")
				eq(t, "still one refund", len(rig.shop.Refunds("5531")), 1)
			})
			t.Run("the refunded item cannot be quoted again", func(t *testing.T) {
				res := srv.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}})
				eq(t, "isError", res.IsError, true)
			})
		})
	}
}

func TestBackofficeVariants(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			ap := &approver{action: "accept"}
			srv := wang(t, sv, rig, ap)

			t.Run("an order without a coupon", func(t *testing.T) {
				res := srv.Call(t, "quote_refund", map[string]any{"order_id": "5532", "line_item_ids": []string{"li_3"}})
				contains(t, testkit.Text(res), "Refund of NT$900 for Wool scarf. How: price 900; no coupon on this order.")
				res = srv.Call(t, "refund_items", map[string]any{"quote_id": quoteID(t, res)})
				contains(t, testkit.Text(res), "Cancelled shipment of Wool scarf ×1; refunded NT$900")
				eq(t, "refund", rig.shop.Refunds("5532")[0].Amount, 900)
			})
			t.Run("an item already in fulfilment", func(t *testing.T) {
				before := rig.shop.Requests()
				res := srv.Call(t, "quote_refund", map[string]any{"order_id": "5533", "line_item_ids": []string{"li_5"}})
				eq(t, "isError", res.IsError, true)
				eq(t, "text", testkit.Text(res), "Desk lamp is being packed and can no longer be cancelled: it can't be cancelled and nothing was refunded. Once it arrives, the customer can send it back with create_return.")
				eq(t, "nothing changed", rig.shop.Requests(), before)
				eq(t, "status", rig.shop.LineItem("5533", "li_5").Status, "in_fulfilment")
			})
			t.Run("an item already refunded", func(t *testing.T) {
				res := srv.Call(t, "quote_refund", map[string]any{"order_id": "5534", "line_item_ids": []string{"li_7"}})
				eq(t, "text", testkit.Text(res), "Already refunded: NT$1,500 on 2026-10-02T11:30:00+08:00 (refund rf_7001). Do not refund it again; tell the customer when it was refunded.")
				eq(t, "refunds", len(rig.shop.Refunds("5534")), 1)
			})
			t.Run("a delivered item", func(t *testing.T) {
				res := srv.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_1"}})
				contains(t, testkit.Text(res), "Bluetooth headphones was delivered on 2026-09-23", "use create_return")
			})
			t.Run("another customer's order", func(t *testing.T) {
				res := srv.Call(t, "get_order", map[string]any{"order_id": "6001"})
				eq(t, "text", testkit.Text(res), "There is no order 6001 for this customer. Ask the customer for the order number shown on their order page.")
			})
			t.Run("a second return on the same order", func(t *testing.T) {
				res := srv.Call(t, "create_return", map[string]any{"order_id": "5535", "line_item_ids": []string{"li_10"}, "kind": "refund", "reason": "too small"})
				contains(t, testkit.Text(res), "(refund) created: refund of NT$300.")
				res = srv.Call(t, "create_return", map[string]any{"order_id": "5535", "line_item_ids": []string{"li_9"}, "kind": "refund", "reason": "too small"})
				contains(t, testkit.Text(res), "(refund) created: refund of NT$1,640.")
				if r := rig.shop.Returns("5535"); len(r) != 2 || r[1].RefundAmount != 1640 {
					t.Errorf("returns: %+v", r)
				}
			})
			t.Run("declined approval runs nothing; the quote stays usable", func(t *testing.T) {
				res := srv.Call(t, "quote_refund", map[string]any{"order_id": "5533", "line_item_ids": []string{"li_6"}})
				q := quoteID(t, res)
				ap.mu.Lock()
				ap.action = "decline"
				ap.mu.Unlock()
				res = srv.Call(t, "refund_items", map[string]any{"quote_id": q})
				eq(t, "isError", res.IsError, true)
				contains(t, testkit.Text(res), "The user declined", "Nothing was done", "quote "+q+" stays valid")
				eq(t, "no refund", len(rig.shop.Refunds("5533")), 0)
				eq(t, "not cancelled", rig.shop.LineItem("5533", "li_6").Status, "pending")
				ap.mu.Lock()
				ap.action = "accept"
				ap.mu.Unlock()
				res = srv.Call(t, "refund_items", map[string]any{"quote_id": q})
				contains(t, testkit.Text(res), "refunded NT$120")
			})
			t.Run("an unknown quote", func(t *testing.T) {
				res := srv.Call(t, "refund_items", map[string]any{"quote_id": "q_nonexisten"})
				contains(t, testkit.Text(res), `There is no quote "q_nonexisten"`, "call it (it changes nothing)")
			})
		})
	}
}

func TestBackofficeExpiredQuote(t *testing.T) {
	rig := newShop(t)
	srv := wang(t, backofficeServers()[0], rig, &approver{action: "accept"}, "--quote-ttl", "1s")
	q := quoteID(t, srv.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}}))
	time.Sleep(1200 * time.Millisecond)
	res := srv.Call(t, "refund_items", map[string]any{"quote_id": q})
	eq(t, "isError", res.IsError, true)
	contains(t, testkit.Text(res), "Quote "+q+" expired at", "Call quote_refund again, tell the user the new result")
	eq(t, "nothing refunded", len(rig.shop.Refunds("5531")), 0)
	eq(t, "nothing cancelled", rig.shop.LineItem("5531", "li_2").Status, "pending")
}

func TestBackofficeForeignQuoteAndRaces(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			ap := &approver{action: "accept"}
			bin, pre := sv.command(t)
			asWang := &http.Client{Transport: headerRoundTripper{"X-Customer-Id": backend.Wang}}
			asLee := &http.Client{Transport: headerRoundTripper{"X-Customer-Id": backend.Lee}}
			wangSrv := testkit.StartHTTPOptions(t, bin, []string{"BACKOFFICE_BASE_URL=" + rig.url}, asWang, ap.options(), pre...)
			leeSrv := wangSrv.Connect(t, asLee, ap.options())

			q := quoteID(t, wangSrv.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}}))
			res := leeSrv.Call(t, "refund_items", map[string]any{"quote_id": q})
			eq(t, "isError", res.IsError, true)
			contains(t, testkit.Text(res), "was made for another caller or session", "Nothing was done")
			eq(t, "nothing refunded", len(rig.shop.Refunds("5531")), 0)

			// Eight concurrent confirms of one quote: exactly one runs.
			ok := 0
			for _, r := range callAtOnce(t, wangSrv, 8, "refund_items", map[string]any{"quote_id": q}) {
				if !r.IsError {
					ok++
				}
			}
			eq(t, "successful confirms", ok, 1)
			eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
		})
	}
}

// TestBackofficeWithoutElicitation: a client that cannot ask the person
// gets a refusal, as the overlay chooses, and nothing runs.
func TestBackofficeWithoutElicitation(t *testing.T) {
	rig := newShop(t)
	srv := wang(t, backofficeServers()[0], rig, nil)
	q := quoteID(t, srv.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}}))
	res := srv.Call(t, "refund_items", map[string]any{"quote_id": q})
	eq(t, "isError", res.IsError, true)
	contains(t, testkit.Text(res), "needs the user's explicit approval", "this client cannot ask for it", "nothing was done")
	eq(t, "nothing refunded", len(rig.shop.Refunds("5531")), 0)
}

// TestBackofficeRawToolsAskForAmounts keeps the comparison honest: without
// the overlay, the raw create_refund asks the model for the amount.
func TestBackofficeRawToolsAskForAmounts(t *testing.T) {
	res, err := generator.Run(generator.Options{SpecPath: filepath.Join(testkit.RepoRoot(), "examples", "backoffice", "openapi.yaml"), Package: "raw"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tl := range res.Curated.Tools {
		if tl.Name == "create_refund" {
			found = true
			contains(t, string(tl.InputSchema), `"amount"`, `"X-Customer-Id"`)
		}
	}
	if !found {
		t.Fatal("the raw tool set has no create_refund")
	}
}

// TestBackofficePartialFailure: when the refund fails after the cancel took
// effect, the model is told exactly that (by step, without the request's
// path), the write is not retried, and calling refund_items again with the
// quote finishes the run: the cancel is not sent again, the refund is, with
// the same Idempotency-Key.
func TestBackofficePartialFailure(t *testing.T) {
	rig := newShop(t)
	var refundCalls int
	var refundKeys []string
	var down = true
	var mu sync.Mutex
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/refunds") {
			mu.Lock()
			refundCalls++
			refundKeys = append(refundKeys, r.Header.Get("Idempotency-Key"))
			failNow := down
			mu.Unlock()
			if failNow {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				w.Write([]byte(`{"code":"payments_down","detail":"the payment provider is unavailable"}`))
				return
			}
		}
		rig.shop.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(failing.Close)
	rig.url = failing.URL
	srv := wang(t, backofficeServers()[0], rig, &approver{action: "accept"})
	q := quoteID(t, srv.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}}))
	res := srv.Call(t, "refund_items", map[string]any{"quote_id": q})
	eq(t, "isError", res.IsError, true)
	text := testkit.Text(res)
	contains(t, text,
		"Only part of refund_items was done. Took effect: step cancel.",
		"Outcome unknown (sent, but no answer says whether the API applied it): step refund.",
		"the API failed (HTTP 503 Service Unavailable)", "the payment provider is unavailable",
		"Calling refund_items again with quote_id "+q+" finishes it")
	if strings.Contains(text, "/orders/") {
		t.Errorf("the message names a concrete request path:\n%s", text)
	}
	eq(t, "cancelled", rig.shop.LineItem("5531", "li_2").Status, "cancelled")
	eq(t, "refund attempts (a write is never retried)", refundCalls, 1)

	mu.Lock()
	down = false
	mu.Unlock()
	res = srv.Call(t, "refund_items", map[string]any{"quote_id": q})
	eq(t, "isError after resuming", res.IsError, false)
	contains(t, testkit.Text(res), "Cancelled shipment of Headphone case ×1; refunded NT$230")
	eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
	cancels := 0
	for _, c := range rig.shop.Calls() {
		if strings.HasSuffix(c.Path, "/cancel") {
			cancels++
		}
	}
	eq(t, "cancels sent", cancels, 1)
	mu.Lock()
	eq(t, "Idempotency-Key of both refund attempts", strings.Join(refundKeys, ","), q+","+q)
	mu.Unlock()
	res = srv.Call(t, "refund_items", map[string]any{"quote_id": q})
	contains(t, testkit.Text(res), "was already carried out")
}
