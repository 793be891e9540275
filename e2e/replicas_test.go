package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/internal/redistest"
	"github.com/tailormcp/tailor/internal/testkit"
)

// The back-office server run as two replicas sharing one Redis (a real
// redis-server the test starts), over stateless streamable HTTP behind a
// round-robin loopback proxy, as a load balancer would run them: quotes
// made on one replica are carried out on the other, once, approvals cross
// replicas, and Redis stopping or losing its data never leads to a write.
// Every scenario runs on the generated server and on tailor serve.

// sharedApprovalKey is the BACKOFFICE_APPROVAL_KEY the replicas share.
const sharedApprovalKey = "replicas-share-this-approval-key-0123456789"

// cluster is two replicas of a server and a round-robin proxy in front.
type cluster struct {
	replicas []*testkit.Server
	proxy    *httptest.Server
}

// startCluster runs two replicas of sv on Redis red, stateless, sharing
// the approval key when shareKey is set.
func startCluster(t *testing.T, sv server, rig *shopRig, red *redistest.Server, shareKey bool, args ...string) *cluster {
	t.Helper()
	cl := &cluster{}
	var targets []*url.URL
	for i := 0; i < 2; i++ {
		r := startReplica(t, sv, rig, red.URL(), shareKey, args...)
		cl.replicas = append(cl.replicas, r)
		u, _ := url.Parse(strings.TrimSuffix(r.Endpoint, "/mcp"))
		targets = append(targets, u)
	}
	var next atomic.Uint64
	cl.proxy = httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(targets[next.Add(1)%uint64(len(targets))])
		},
		FlushInterval: -1,
	})
	t.Cleanup(cl.proxy.Close)
	return cl
}

func startReplica(t *testing.T, sv server, rig *shopRig, redisURL string, shareKey bool, args ...string) *testkit.Server {
	t.Helper()
	bin, pre := sv.command(t)
	env := []string{"BACKOFFICE_BASE_URL=" + rig.url}
	if shareKey {
		env = append(env, "BACKOFFICE_APPROVAL_KEY="+sharedApprovalKey)
	}
	return testkit.RunHTTP(t, bin, env, append(append(pre, "--stateless", "--quote-store", redisURL), args...)...)
}

// client connects as customer Wang through the proxy.
func (cl *cluster) client(t *testing.T, opts *mcp.ClientOptions) *testkit.Server {
	t.Helper()
	return &testkit.Server{Session: testkit.ConnectHTTP(t, cl.proxy.URL+"/mcp", asCustomer(backend.Wang), opts), Endpoint: cl.proxy.URL + "/mcp"}
}

// probe GETs path of a replica: its status and body.
func probe(t *testing.T, r *testkit.Server, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(r.Endpoint, "/mcp") + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// waitReady polls /readyz until it answers want (the results are cached
// for 2 s).
func waitReady(t *testing.T, r *testkit.Server, want int) string {
	t.Helper()
	deadline := time.Now().Add(8 * time.Second)
	for {
		code, body := probe(t, r, "/readyz")
		if code == want {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz answers %d %s, want %d", code, body, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestReplicasShareQuotes: a quote made on one replica is carried out on
// the other, once; 50 concurrent confirms spread over both replicas make
// exactly one refund and ask the person once; both replicas' audit
// records reach the shared Redis stream.
func TestReplicasShareQuotes(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			red := redistest.Start(t, false)
			rig := newShop(t)
			cl := startCluster(t, sv, rig, red, true, "--audit-stream", red.URL())
			for _, r := range cl.replicas {
				code, body := probe(t, r, "/healthz")
				eq(t, "healthz", code, http.StatusOK)
				eq(t, "readyz", waitReady(t, r, http.StatusOK), `{"checks":[{"name":"backend","ok":true},{"name":"quote store","ok":true}],"ready":true}`)
				_ = body
			}

			person := &approver{action: "accept"}
			a := cl.replicas[0].Connect(t, asCustomer(backend.Wang), person.options())
			b := cl.replicas[1].Connect(t, asCustomer(backend.Wang), person.options())
			q := quote5531(t, a)
			eq(t, "writes after the quote", writes(rig), 0)
			res := b.Call(t, "refund_items", map[string]any{"quote_id": q})
			eq(t, "isError", res.IsError, false)
			contains(t, testkit.Text(res), "Cancelled shipment of Headphone case ×1; refunded NT$230")
			eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
			eq(t, "prompts", person.asked(), 1)
			auditLines(t, cl.replicas[0], "quote_refund", 1, `"outcome":"ok"`)
			auditLines(t, cl.replicas[1], "refund_items", 1, `"outcome":"ok"`, `"approval":"accept"`)
			res = a.Call(t, "refund_items", map[string]any{"quote_id": q})
			contains(t, testkit.Text(res), "Quote "+q+" was already carried out")
			eq(t, "refunds after a second confirm on the first replica", len(rig.shop.Refunds("5531")), 1)

			// 50 confirms at once, through the proxy: round robin spreads
			// them (and the approval round trips) over both replicas.
			var prompts atomic.Int32
			via := cl.client(t, slowApprover(&prompts))
			q2 := quoteID(t, via.Call(t, "quote_refund", map[string]any{"order_id": "5532", "line_item_ids": []string{"li_3"}}))
			before := writes(rig)
			ok, held := 0, 0
			for _, r := range callAtOnce(t, via, 50, "refund_items", map[string]any{"quote_id": q2}) {
				text := testkit.Text(r)
				switch {
				case !r.IsError:
					ok++
				case strings.Contains(text, "is being carried out by another call") && strings.Contains(text, "This call did nothing"),
					strings.Contains(text, "was already carried out") && strings.Contains(text, "Nothing more was done"):
					held++
				default:
					t.Errorf("unexpected result: %s", text)
				}
			}
			eq(t, "successful confirms", ok, 1)
			eq(t, "confirms that did nothing", held, 49)
			eq(t, "prompts", int(prompts.Load()), 1)
			eq(t, "refunds", len(rig.shop.Refunds("5532")), 1)
			eq(t, "writes (one cancel, one refund)", writes(rig)-before, 2)
			for i, r := range cl.replicas {
				if n := len(auditLines(t, r, "refund_items", 2)); n < 2 {
					t.Errorf("replica %d served %d confirms", i, n)
				}
			}

			// The audit stream holds both replicas' records.
			rc := redis.NewClient(&redis.Options{Addr: red.Addr()})
			defer rc.Close()
			var entries []redis.XMessage
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				if entries, _ = rc.XRange(context.Background(), "backoffice:audit", "-", "+").Result(); len(entries) >= 54 {
					break
				}
			}
			if len(entries) < 54 {
				t.Fatalf("the audit stream holds %d records, want at least 54 (2 quotes, 52 confirm calls)", len(entries))
			}
			// Each replica sends its records on its own, so the stream
			// interleaves them in no set order: a confirm's record may come
			// before the quote's, which another replica served.
			quotes := 0
			for _, e := range entries {
				var rec auditRecord
				line, _ := e.Values["line"].(string)
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("stream record %s is not an audit record: %v", line, err)
				}
				if rec.Tool == "quote_refund" && rec.Outcome == "ok" {
					quotes++
				}
			}
			eq(t, "quote records in the stream", quotes, 2)
		})
	}
}

// TestReplicasApprovalAcrossReplicas: an approval requested by one
// replica is answered on the other when they share the approval key; with
// keys of their own, the answer is refused saying why, and nothing runs.
func TestReplicasApprovalAcrossReplicas(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			for _, shared := range []bool{true, false} {
				red := redistest.Start(t, false)
				rig := newShop(t)
				cl := startCluster(t, sv, rig, red, shared)
				a := cl.replicas[0].Connect(t, asCustomer(backend.Wang), manual())
				b := cl.replicas[1].Connect(t, asCustomer(backend.Wang), manual())
				q := quote5531(t, a)
				state := inputRequest(t, a, "refund_items", q)
				res := callParams(t, b, &mcp.CallToolParams{Name: "refund_items", Arguments: map[string]any{"quote_id": q}, InputResponses: accept, RequestState: state})
				if shared {
					eq(t, "isError", res.IsError, false)
					contains(t, testkit.Text(res), "refunded NT$230")
					eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
					eq(t, "audit on the second replica", lastFinal(audits(t, cl.replicas[1], "refund_items", 1)).Approval, "accept")
					continue
				}
				eq(t, "isError", res.IsError, true)
				contains(t, testkit.Text(res), "issued by another instance of this server, which signs approvals with a different key",
					"Nothing was done", "quote "+q+" stays held")
				eq(t, "writes", writes(rig), 0)
				eq(t, "audit: ignored", lastFinal(audits(t, cl.replicas[1], "refund_items", 1)).Ignored, "requestState signed with another approval key")
				contains(t, cl.replicas[1].Stderr(), "give every replica the same BACKOFFICE_APPROVAL_KEY")
				contains(t, cl.replicas[0].Stderr(), "the approval key is random to this process")
			}
		})
	}
}

// TestReplicasRedisDown: with Redis stopped, a confirm and a quote are
// refused saying nothing was done (the backend receives no write, and for
// the confirm nothing at all) and the replicas report not ready; a replica
// started meanwhile starts and says so. Redis restarted with its data:
// the quote made before is carried out. Restarted empty: the quote is
// unknown and nothing runs.
func TestReplicasRedisDown(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			red := redistest.Start(t, true)
			rig := newShop(t)
			cl := startCluster(t, sv, rig, red, true, "--redis-timeout", "500ms")
			c := cl.client(t, (&approver{action: "accept"}).options())
			q1 := quote5531(t, c)
			q2 := quoteID(t, c.Call(t, "quote_refund", map[string]any{"order_id": "5532", "line_item_ids": []string{"li_3"}}))

			red.Stop()
			received := len(rig.shop.Calls())
			res := c.Call(t, "refund_items", map[string]any{"quote_id": q1})
			eq(t, "isError", res.IsError, true)
			contains(t, testkit.Text(res), "The server's quote store cannot be reached right now, so quote "+q1+" could not be read or reserved. Nothing was done.")
			eq(t, "requests the backend received for the confirm", len(rig.shop.Calls()), received)
			res = c.Call(t, "quote_refund", map[string]any{"order_id": "5533", "line_item_ids": []string{"li_6"}})
			eq(t, "isError", res.IsError, true)
			contains(t, testkit.Text(res), "quote store cannot be reached right now, so no quote was stored", "Nothing was changed")
			eq(t, "writes", writes(rig), 0)
			for _, r := range cl.replicas {
				body := waitReady(t, r, http.StatusServiceUnavailable)
				contains(t, body, `{"name":"quote store","ok":false,"error":"connection refused"}`, `"ready":false`)
			}
			stderr := cl.replicas[0].Stderr() + cl.replicas[1].Stderr()
			contains(t, stderr, `"msg":"quote store failed"`, `"msg":"readiness check failing","check":"quote store"`)

			// A replica started while Redis is down starts, says so, is not ready.
			late := startReplica(t, sv, rig, red.URL(), true)
			late.WaitStderr(t, "the start-up warning", func(s string) bool {
				return strings.Contains(s, "the quote store does not answer: quotes can be neither made nor carried out until it does")
			})
			waitReady(t, late, http.StatusServiceUnavailable)

			red.Restart(true)
			for _, r := range cl.replicas {
				waitReady(t, r, http.StatusOK)
			}
			res = c.Call(t, "refund_items", map[string]any{"quote_id": q1})
			eq(t, "after a restart with persistence", res.IsError, false)
			contains(t, testkit.Text(res), "refunded NT$230")
			eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)

			red.Restart(false)
			before := writes(rig)
			res = c.Call(t, "refund_items", map[string]any{"quote_id": q2})
			eq(t, "isError", res.IsError, true)
			contains(t, testkit.Text(res), `There is no quote "`+q2+`"`, "Nothing was done")
			eq(t, "writes after a restart without persistence", writes(rig), before)
			eq(t, "refunds of the lost quote", len(rig.shop.Refunds("5532")), 0)
		})
	}
}

// TestReplicasResumeAfterUnknownOutcome: a confirm on one replica whose
// cancel times out after the backend applied it is finished by a confirm
// on the other: the cancel is sent again with the same idempotency key,
// then the refund, and nobody is asked twice.
func TestReplicasResumeAfterUnknownOutcome(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			red := redistest.Start(t, false)
			rig := newShop(t)
			keys := hangingCancel(t, rig, 1500*time.Millisecond)
			cl := startCluster(t, sv, rig, red, true, "--timeout", "400ms")
			person := &approver{action: "accept"}
			a := cl.replicas[0].Connect(t, asCustomer(backend.Wang), person.options())
			b := cl.replicas[1].Connect(t, asCustomer(backend.Wang), person.options())
			q := quote5531(t, a)
			res := a.Call(t, "refund_items", map[string]any{"quote_id": q})
			eq(t, "isError", res.IsError, true)
			contains(t, testkit.Text(res), "Only part of refund_items was done.", "Outcome unknown (sent, but no answer says whether the API applied it): step cancel.",
				"Calling refund_items again with quote_id "+q+" finishes it")
			res = b.Call(t, "refund_items", map[string]any{"quote_id": q})
			eq(t, "resumed on the other replica", res.IsError, false)
			contains(t, testkit.Text(res), "Cancelled shipment of Headphone case ×1; refunded NT$230")
			eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
			eq(t, "cancel keys", strings.Join(keys(), ","), q+"-li_2,"+q+"-li_2")
			eq(t, "prompts", person.asked(), 1)
			eq(t, "audit on the second replica", lastFinal(audits(t, cl.replicas[1], "refund_items", 1)).Approval, "resumed")
		})
	}
}

// TestReplicaStoppedMidConfirm: a replica told to stop (SIGTERM) while a
// confirm waits on the backend gives the call its bound, then interrupts
// it: the audit log says its outcome is unknown, the quote keeps the
// progress, the process exits, and the other replica finishes the run.
func TestReplicaStoppedMidConfirm(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			red := redistest.Start(t, false)
			rig := newShop(t)
			release := make(chan struct{})
			var mu sync.Mutex
			var cancelKeys []string
			h := rig.shop.Handler()
			hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/cancel") {
					mu.Lock()
					cancelKeys = append(cancelKeys, r.Header.Get("Idempotency-Key"))
					first := len(cancelKeys) == 1
					mu.Unlock()
					if first {
						// Applied, then no answer until the test ends.
						h.ServeHTTP(httptest.NewRecorder(), r)
						select {
						case <-release:
						case <-time.After(30 * time.Second):
						}
						return
					}
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(hung.Close)
			t.Cleanup(func() { close(release) })
			rig.url = hung.URL
			cl := startCluster(t, sv, rig, red, true, "--shutdown-timeout", "1s")
			person := &approver{action: "accept"}
			a := cl.replicas[0].Connect(t, asCustomer(backend.Wang), person.options())
			q := quote5531(t, a)
			type outcome struct {
				res *mcp.CallToolResult
				err error
			}
			done := make(chan outcome, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				res, err := a.Session.CallTool(ctx, &mcp.CallToolParams{Name: "refund_items", Arguments: map[string]any{"quote_id": q}})
				done <- outcome{res, err}
			}()
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				mu.Lock()
				n := len(cancelKeys)
				mu.Unlock()
				if n > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the cancel never reached the backend")
				}
			}
			began := time.Now()
			if err := cl.replicas[0].Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if code := cl.replicas[0].Wait(10 * time.Second); code != 0 {
				t.Fatalf("the replica exited with %d after SIGTERM\n%s", code, cl.replicas[0].Stderr())
			}
			if d := time.Since(began); d > 6*time.Second {
				t.Errorf("the replica took %s to stop with a 1s bound", d)
			}
			t.Logf("stopped %s after SIGTERM", time.Since(began).Round(time.Millisecond))
			if o := <-done; o.err != nil {
				t.Logf("the interrupted call got no answer: %v", o.err)
			} else {
				// The interrupted call still answered before the process exited.
				contains(t, testkit.Text(o.res), "Only part of refund_items was done.", "step cancel", "Calling refund_items again with quote_id "+q+" finishes it")
			}
			rec := auditLines(t, cl.replicas[0], "refund_items", 1, `"interrupted":"the server was shutting down"`)[0]
			contains(t, rec, `"outcome":"unknown"`)
			contains(t, cl.replicas[0].Stderr(), `"msg":"shutting down: no new connections; waiting for the calls in progress"`,
				`"msg":"shutdown: calls still in progress at the bound are interrupted; their outcome is unknown"`)
			eq(t, "refunds so far", len(rig.shop.Refunds("5531")), 0)

			b := cl.replicas[1].Connect(t, asCustomer(backend.Wang), person.options())
			res := b.Call(t, "refund_items", map[string]any{"quote_id": q})
			eq(t, "finished on the other replica", res.IsError, false)
			contains(t, testkit.Text(res), "Cancelled shipment of Headphone case ×1; refunded NT$230")
			eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
			mu.Lock()
			eq(t, "cancel keys", strings.Join(cancelKeys, ","), q+"-li_2,"+q+"-li_2")
			mu.Unlock()
			eq(t, "prompts", person.asked(), 1)
		})
	}
}

// TestQuoteStoreSettingErrors: a wrong quote store URL stops the server at
// start, naming the setting, without showing the password.
func TestQuoteStoreSettingErrors(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			bin, pre := sv.command(t)
			for _, bad := range []string{"http://u:pa55word@cache:6379", "redis://u:pa55word@cache:6379/db"} {
				cmd := exec.Command(bin, append(pre, "--quote-store", bad)...)
				out, err := cmd.CombinedOutput()
				if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 {
					t.Fatalf("%s: %v\n%s", bad, err, out)
				}
				contains(t, string(out), "--quote-store ", "://u:xxxxx@cache:6379")
				if strings.Contains(string(out), "pa55word") {
					t.Errorf("the password shows:\n%s", out)
				}
			}
		})
	}
}
