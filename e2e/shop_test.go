package e2e

import (
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tailormcp/tailor/internal/testkit"
)

const apiKey = "k3y-s3cret-value"

var transports = []string{"stdio", "http", "http-stateless"}

// startShop runs the shop server over the given transport against backend.
func startShop(t *testing.T, srv server, transport string, backendURL string, args ...string) *testkit.Server {
	t.Helper()
	env := []string{
		"SHOP_BASE_URL=" + backendURL + "/api",
		"SHOP_API_KEY=" + apiKey,
		"SHOP_BEARER_TOKEN=bearer-t0ken",
		"SHOP_BASIC_AUTH_USERNAME=ann",
		"SHOP_BASIC_AUTH_PASSWORD=pa55word",
		"SHOP_QUERY_KEY=qkey-123",
	}
	switch transport {
	case "stdio":
		return srv.stdio(t, env, args...)
	case "http":
		return srv.http(t, env, nil, args...)
	default:
		return srv.http(t, env, nil, append([]string{"--stateless"}, args...)...)
	}
}

// shopServers are the raw shop tool set, generated and served.
func shopServers() []server { return shop.servers() }

func jsonReply(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// TestRequests checks, over every transport, that arguments reach the
// backend in the right slot and that the model reads the response.
func TestRequests(t *testing.T) {
	for _, sv := range shopServers() {
		for _, tr := range transports {
			t.Run(sv.kind+"/"+tr, func(t *testing.T) { testRequests(t, sv, tr) })
		}
	}
}

func testRequests(t *testing.T, sv server, tr string) {
	{
		{
			backend := testkit.NewBackend(t, nil)
			srv := startShop(t, sv, tr, backend.URL)

			t.Run("path query header cookie and JSON result", func(t *testing.T) {
				order := `{"order_id":"5531","status":"open","total":1430,"items":[{"line_item_id":"li_1","price":1200}]}`
				backend.Handle(jsonReply(200, order))
				res := srv.Call(t, "get_order", map[string]any{
					"order_id": "5531", "expand": []string{"line_items", "coupon"},
					"X-Request-Id": "req-1", "session": "s=1",
				})
				got := backend.Last(t)
				eq(t, "method", got.Method, "GET")
				eq(t, "path", got.RawPath, "/api/orders/5531")
				eq(t, "query", got.Query, "expand=line_items%2Ccoupon")
				eq(t, "X-Request-Id", got.Header.Get("X-Request-Id"), "req-1")
				eq(t, "cookie", got.Header.Get("Cookie"), "session=s%3D1")
				eq(t, "api key", got.Header.Get("X-Api-Key"), apiKey)
				eq(t, "isError", res.IsError, false)
				eq(t, "text", testkit.Text(res), order)
				eq(t, "structured", testkit.Structured(res), `{"items":[{"line_item_id":"li_1","price":1200}],"order_id":"5531","status":"open","total":1430}`)
			})

			t.Run("path values cannot change the path", func(t *testing.T) {
				backend.Handle(jsonReply(200, `{"order_id":"x","status":"open"}`))
				for in, want := range map[string]string{
					"../admin":  "/api/orders/..%2Fadmin",
					"a/b?x=1#y": "/api/orders/a%2Fb%3Fx=1%23y",
					"...":       "/api/orders/...",
					"50%":       "/api/orders/50%25",
				} {
					srv.Call(t, "get_order", map[string]any{"order_id": in})
					got := backend.Last(t)
					eq(t, "path for "+in, got.RawPath, want)
					eq(t, "query for "+in, got.Query, "")
				}
			})

			t.Run("dot segments are refused, raw or encoded", func(t *testing.T) {
				backend.Take()
				for _, in := range []string{"..", ".", "%2E%2E", "%2e", "%252E%252E"} {
					res := srv.Call(t, "get_order", map[string]any{"order_id": in})
					eq(t, "isError for "+in, res.IsError, true)
					contains(t, testkit.Text(res), "order_id", "relative step", "Nothing was sent")
				}
				eq(t, "requests sent", len(backend.Take()), 0)
			})

			t.Run("header injection is refused", func(t *testing.T) {
				backend.Take()
				res := srv.Call(t, "get_order", map[string]any{"order_id": "1", "X-Request-Id": "a\r\nX-Evil: 1"})
				eq(t, "isError", res.IsError, true)
				contains(t, testkit.Text(res), "line break", "Nothing was sent")
				eq(t, "requests sent", len(backend.Take()), 0)
			})

			t.Run("query styles", func(t *testing.T) {
				backend.Handle(jsonReply(200, `[{"order_id":"1","status":"open"}]`))
				res := srv.Call(t, "list_orders", map[string]any{
					"status": []string{"open", "shipped"},
					"filter": map[string]any{"min_total": 100, "tag": "gift"},
					"tags":   []string{"a", "b"},
					"words":  []string{"red", "hat"},
					"limit":  10,
					"where":  map[string]any{"a": 1},
				})
				q, err := url.ParseQuery(backend.Last(t).Query)
				if err != nil {
					t.Fatal(err)
				}
				eq(t, "status", strings.Join(q["status"], ","), "open,shipped")
				eq(t, "filter[min_total]", q.Get("filter[min_total]"), "100")
				eq(t, "filter[tag]", q.Get("filter[tag]"), "gift")
				eq(t, "tags", q.Get("tags"), "a|b")
				eq(t, "words", q.Get("words"), "red hat")
				eq(t, "limit", q.Get("limit"), "10")
				eq(t, "where", q.Get("where"), `{"a":1}`)
				eq(t, "structured", testkit.Structured(res), `{"items":[{"order_id":"1","status":"open"}]}`)
			})

			t.Run("invalid arguments never reach the backend", func(t *testing.T) {
				backend.Take()
				for _, c := range []struct {
					args map[string]any
					want []string
				}{
					{map[string]any{"limit": 500}, []string{"limit", "50"}},
					{map[string]any{"limt": 5}, []string{"limt"}},
					{map[string]any{"status": "open"}, []string{"status", "array"}},
				} {
					res := srv.Call(t, "list_orders", c.args)
					eq(t, "isError", res.IsError, true)
					contains(t, testkit.Text(res), append(c.want, "Nothing was sent")...)
				}
				res := srv.Call(t, "get_order", map[string]any{})
				eq(t, "isError", res.IsError, true)
				contains(t, testkit.Text(res), "order_id")
				eq(t, "requests sent", len(backend.Take()), 0)
			})

			t.Run("JSON body fields with a renamed collision and exact big numbers", func(t *testing.T) {
				backend.Handle(jsonReply(201, `{"order_id":"o_9","status":"open","total":9007199254740993}`))
				res := srv.Call(t, "create_order", map[string]any{
					"id": "q1", "body_id": "b1", "total": 9007199254740993,
					"items": []any{map[string]any{"line_item_id": "li_1"}}, "note": nil,
				})
				got := backend.Last(t)
				eq(t, "method", got.Method, "POST")
				eq(t, "query", got.Query, "id=q1")
				eq(t, "content type", got.Header.Get("Content-Type"), "application/json")
				// A null for an optional property is how a strict-mode
				// client leaves it out (mcpkit/strict.go): it is not sent.
				eq(t, "body", got.Body, `{"id":"b1","items":[{"line_item_id":"li_1"}],"total":9007199254740993}`)
				contains(t, testkit.Text(res), "9007199254740993")
			})

			t.Run("form body with deepObject encoding and a query api key", func(t *testing.T) {
				backend.Handle(jsonReply(200, `{"refund_id":"rf_1","amount":230}`))
				srv.Call(t, "create_refund", map[string]any{
					"order_id": "5531", "amount": 230, "metadata": map[string]any{"reason": "late"}, "reasons": []string{"a", "b"},
				})
				got := backend.Last(t)
				eq(t, "content type", got.Header.Get("Content-Type"), "application/x-www-form-urlencoded")
				eq(t, "body", got.Body, "amount=230&metadata%5Breason%5D=late&order_id=5531&reasons=a&reasons=b")
				eq(t, "query", got.Query, "key=qkey-123")
				eq(t, "no header key", got.Header.Get("X-Api-Key"), "")
			})

			t.Run("multipart body", func(t *testing.T) {
				backend.Handle(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
				res := srv.Call(t, "upload", map[string]any{"name": "a.txt", "file": "hello", "meta": map[string]any{"k": "v"}})
				got := backend.Last(t)
				mt, params, err := mime.ParseMediaType(got.Header.Get("Content-Type"))
				if err != nil || mt != "multipart/form-data" {
					t.Fatalf("content type %q: %v", got.Header.Get("Content-Type"), err)
				}
				parts := map[string]string{}
				mr := multipart.NewReader(strings.NewReader(got.Body), params["boundary"])
				for {
					p, err := mr.NextPart()
					if err != nil {
						break
					}
					b, _ := io.ReadAll(p)
					parts[p.FormName()] = string(b)
				}
				eq(t, "parts", fmt.Sprint(parts), `map[file:hello meta:{"k":"v"} name:a.txt]`)
				contains(t, testkit.Text(res), "HTTP 200", "no content")
			})

			t.Run("raw text body and text response", func(t *testing.T) {
				backend.Handle(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/plain")
					io.WriteString(w, "stored: fragile")
				})
				res := srv.Call(t, "put_notes", map[string]any{"order_id": "7", "body": "fragile"})
				got := backend.Last(t)
				eq(t, "method", got.Method, "PUT")
				eq(t, "content type", got.Header.Get("Content-Type"), "text/plain")
				eq(t, "body", got.Body, "fragile")
				eq(t, "text", testkit.Text(res), "stored: fragile")
				eq(t, "structured", testkit.Structured(res), "")
			})

			t.Run("whole array body with basic auth", func(t *testing.T) {
				backend.Handle(jsonReply(200, `["a","b"]`))
				res := srv.Call(t, "add_tags", map[string]any{"order_id": "7", "body": []string{"a", "b"}})
				got := backend.Last(t)
				eq(t, "body", got.Body, `["a","b"]`)
				eq(t, "auth", got.Header.Get("Authorization"), "Basic "+base64.StdEncoding.EncodeToString([]byte("ann:pa55word")))
				eq(t, "structured", testkit.Structured(res), `{"items":["a","b"]}`)
			})

			t.Run("bearer and an empty success", func(t *testing.T) {
				backend.Handle(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
				res := srv.Call(t, "delete_order", map[string]any{"order_id": "7"})
				got := backend.Last(t)
				eq(t, "method", got.Method, "DELETE")
				eq(t, "auth", got.Header.Get("Authorization"), "Bearer bearer-t0ken")
				eq(t, "isError", res.IsError, false)
				contains(t, testkit.Text(res), "Done", "204")
			})

			t.Run("no credentials where security is empty", func(t *testing.T) {
				backend.Handle(jsonReply(200, `"ok"`))
				res := srv.Call(t, "get_health", nil)
				got := backend.Last(t)
				eq(t, "api key", got.Header.Get("X-Api-Key"), "")
				eq(t, "auth", got.Header.Get("Authorization"), "")
				eq(t, "structured", testkit.Structured(res), `{"value":"ok"}`)
			})
		}
	}
}

// TestFailures checks the result the model reads for each kind of failure.
func TestFailures(t *testing.T) {
	for _, sv := range shopServers() {
		t.Run(sv.kind, func(t *testing.T) { testFailures(t, sv) })
	}
}

func testFailures(t *testing.T, sv server) {
	backend := testkit.NewBackend(t, nil)
	srv := startShop(t, sv, "stdio", backend.URL, "--timeout", "500ms", "--retries", "2")
	cases := []struct {
		name   string
		tool   string
		args   map[string]any
		reply  http.HandlerFunc
		want   []string
		sends  int
		forbid []string
	}{
		{"400 names the field", "create_refund", map[string]any{"order_id": "1", "amount": 99999},
			jsonReply(400, `{"message":"amount exceeds the refundable total","field":"amount"}`),
			[]string{"rejected the request as invalid", "HTTP 400", "amount exceeds the refundable total", `field: "amount"`, "Correct the argument"}, 1, nil},
		{"422 detail list", "create_order", map[string]any{"items": []any{}},
			jsonReply(422, `{"detail":[{"loc":["body","items"],"msg":"must not be empty"}]}`),
			[]string{"HTTP 422", "must not be empty"}, 1, nil},
		{"401 do not retry", "get_order", map[string]any{"order_id": "1"},
			jsonReply(401, `{"error":"invalid key"}`),
			[]string{"Not permitted", "HTTP 401", "invalid key", "Do not retry"}, 1, nil},
		{"403", "delete_order", map[string]any{"order_id": "1"},
			jsonReply(403, `{"message":"forbidden"}`),
			[]string{"Not permitted", "HTTP 403", "do not look for another tool"}, 1, nil},
		{"404", "get_order", map[string]any{"order_id": "404"},
			jsonReply(404, `{"code":"not_found","message":"no order 404"}`),
			[]string{"Not found", "no order 404", "instead of guessing"}, 1, nil},
		{"409", "create_order", map[string]any{"items": []any{}},
			jsonReply(409, `{"message":"already exists"}`),
			[]string{"Conflict", "already exists", "current state"}, 1, nil},
		{"429 says when", "get_order", map[string]any{"order_id": "1"},
			func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(429)
			},
			[]string{"Rate limited", "7 seconds"}, 1, nil},
		{"500 on a read is retried then explained", "get_order", map[string]any{"order_id": "1"},
			jsonReply(503, `{"message":"maintenance"}`),
			[]string{"HTTP 503", "maintenance", "retry once later"}, 3, nil},
		{"500 on a write is not retried", "create_order", map[string]any{"items": []any{}},
			jsonReply(503, `{"message":"maintenance"}`),
			[]string{"HTTP 503", "may or may not have taken effect", "do not resend it blindly"}, 1, nil},
		{"timeout on a write: outcome unknown", "create_order", map[string]any{"items": []any{}},
			func(w http.ResponseWriter, r *http.Request) { time.Sleep(1500 * time.Millisecond) },
			[]string{"outcome is unknown", "Do not call create_order again blindly"}, 1, nil},
		{"timeout on a read is retried", "get_order", map[string]any{"order_id": "1"},
			func(w http.ResponseWriter, r *http.Request) { time.Sleep(1500 * time.Millisecond) },
			[]string{"did not answer within 500ms", "safe to repeat"}, 3, nil},
		{"secrets echoed by the backend are redacted", "get_order", map[string]any{"order_id": "1"},
			jsonReply(401, `{"message":"key `+apiKey+` is revoked"}`),
			[]string{"[redacted] is revoked"}, 1, []string{apiKey}},
		{"non-JSON error body", "get_order", map[string]any{"order_id": "1"},
			func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(502)
				io.WriteString(w, "<html>Bad gateway</html>")
			},
			[]string{"HTTP 502", "Bad gateway"}, 3, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			backend.Take()
			backend.Handle(c.reply)
			res := srv.Call(t, c.tool, c.args)
			text := testkit.Text(res)
			eq(t, "isError", res.IsError, true)
			contains(t, text, c.want...)
			for _, f := range c.forbid {
				if strings.Contains(text, f) {
					t.Errorf("result contains %q:\n%s", f, text)
				}
			}
			eq(t, "requests sent", len(backend.Take()), c.sends)
		})
	}
	// Everything logged is in once the last call's audit record is.
	last, calls := cases[len(cases)-1].tool, 0
	for _, c := range cases {
		if c.tool == last {
			calls++
		}
	}
	auditLines(t, srv, last, calls)
	if strings.Contains(srv.Stderr(), apiKey) {
		t.Errorf("the server logged the API key:\n%s", srv.Stderr())
	}

	t.Run("connection refused", func(t *testing.T) {
		down := startShop(t, sv, "stdio", "http://127.0.0.1:1", "--retries", "0")
		res := down.Call(t, "create_order", map[string]any{"items": []any{}})
		eq(t, "isError", res.IsError, true)
		contains(t, testkit.Text(res), "connection refused", "nothing was sent")
	})
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

func contains(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("missing %q in:\n%s", w, text)
		}
	}
}
