package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/internal/testkit"
)

// The hostile client: a client that forges or replays approvals, spoofs
// identity, sends malformed frames and races its own confirms. Every case
// runs on the generated back-office server and on tailor serve, over the
// transports it concerns, and asserts on what the backend received, what
// the model read and the audit log.

// transports the approval cases run over: stdio and stateless HTTP speak
// the 2026-07-28 protocol (the client answers input requests itself),
// stateful HTTP the older one (go-sdk elicits on the session for it).
var approvalTransports = []string{"stdio", "http", "stateless"}

// startBackoffice runs sv for customer Wang over tr: over stdio the
// identity comes from the environment, over HTTP from the X-Customer-Id
// header the client sends.
func startBackoffice(t *testing.T, sv server, tr string, rig *shopRig, opts *mcp.ClientOptions, args ...string) *testkit.Server {
	t.Helper()
	bin, pre := sv.command(t)
	env := []string{"BACKOFFICE_BASE_URL=" + rig.url}
	args = append(pre, args...)
	switch tr {
	case "stdio":
		return testkit.StartStdioClient(t, bin, append(env, "BACKOFFICE_CUSTOMER_ID="+backend.Wang), opts, args...)
	case "stateless":
		args = append(args, "--stateless")
	}
	return testkit.StartHTTPOptions(t, bin, env, asCustomer(backend.Wang), opts, args...)
}

func asCustomer(id string) *http.Client {
	return &http.Client{Transport: headerRoundTripper{"X-Customer-Id": id}}
}

// callParams calls a tool with every field of the request under the
// test's control, as a hostile client would send it.
func callParams(t *testing.T, srv *testkit.Server, p *mcp.CallToolParams) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := srv.Session.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("call %s: %v\nserver stderr:\n%s", p.Name, err, srv.Stderr())
	}
	return res
}

func quote5531(t *testing.T, srv *testkit.Server) string {
	t.Helper()
	return quoteID(t, srv.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}}))
}

var accept = mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: "accept"}}

// auditRecord is one line of the audit log, as the tests read it.
type auditRecord struct {
	Tool     string         `json:"tool"`
	Identity map[string]any `json:"identity"`
	Approval string         `json:"approval"`
	Ignored  string         `json:"approval_ignored"`
	Calls    []struct {
		Step, Method, Path string
		Status             int
		Outcome            string
	} `json:"calls"`
	Created []string `json:"created"`
	Failed  string   `json:"failed_step"`
	Outcome string   `json:"outcome"`
	Message string   `json:"message"`
}

// audits waits until srv's stderr holds at least n audit records of tool
// and returns them: one per handler run (a call that asks for approval
// writes one, "awaiting approval", and its answer another).
func audits(t *testing.T, srv *testkit.Server, tool string, n int) []auditRecord {
	t.Helper()
	var recs []auditRecord
	for _, l := range auditLines(t, srv, tool, n) {
		var r auditRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("audit record %s: %v", l, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// finals are the records of calls that ended (not awaiting an answer).
func finals(recs []auditRecord) []auditRecord {
	var out []auditRecord
	for _, r := range recs {
		if r.Outcome != "awaiting approval" {
			out = append(out, r)
		}
	}
	return out
}

// ignored lists why approval answers were ignored, in order.
func ignored(recs []auditRecord) string {
	var out []string
	for _, r := range recs {
		if r.Ignored != "" {
			out = append(out, r.Ignored)
		}
	}
	return strings.Join(out, "|")
}

// lastFinal is the last call that ended.
func lastFinal(recs []auditRecord) auditRecord {
	f := finals(recs)
	return f[len(f)-1]
}

// writes counts the state-changing requests the shop received.
func writes(rig *shopRig) int { return rig.shop.Requests() }

// TestHostileSelfApproval: inputResponses a client sends on its own, with
// no requestState or a forged one, are no approval: the person is asked
// (and here says no), and nothing is written. With
// without_elicitation: refuse and a client that cannot ask, the call is
// refused.
func TestHostileSelfApproval(t *testing.T) {
	for _, sv := range backofficeServers() {
		for _, tr := range approvalTransports {
			t.Run(sv.kind+"/"+tr, func(t *testing.T) {
				rig := newShop(t)
				person := &approver{action: "decline"}
				srv := startBackoffice(t, sv, tr, rig, person.options())
				for i, forged := range []struct{ state, why string }{
					{"", "inputResponses without a requestState"},
					{"eyJhbGciOiJIUzI1NiJ9.eyJxaWQiOiJ4In0.c2lnbmF0dXJl", "requestState not issued by this server"},
				} {
					q := quote5531(t, srv)
					res := callParams(t, srv, &mcp.CallToolParams{Name: "refund_items", Arguments: map[string]any{"quote_id": q}, InputResponses: accept, RequestState: forged.state})
					eq(t, "isError", res.IsError, true)
					contains(t, testkit.Text(res), "The user declined", "Nothing was done", "quote "+q+" stays valid")
					eq(t, "writes", writes(rig), 0)
					person.mu.Lock()
					eq(t, "the person was asked", len(person.questions), i+1)
					person.mu.Unlock()
					recs := audits(t, srv, "refund_items", 2*(i+1))
					eq(t, "audit: ignored", strings.Split(ignored(recs), "|")[i], forged.why)
					rec := lastFinal(recs)
					eq(t, "audit: approval", rec.Approval, "decline")
					eq(t, "audit: no calls", len(rec.Calls), 0)
				}

				// A client that cannot ask the person, where the overlay refuses.
				mute := startBackoffice(t, sv, tr, rig, nil)
				q := quote5531(t, mute)
				res := callParams(t, mute, &mcp.CallToolParams{Name: "refund_items", Arguments: map[string]any{"quote_id": q}, InputResponses: accept})
				eq(t, "isError", res.IsError, true)
				contains(t, testkit.Text(res), "needs the user's explicit approval", "this client cannot ask for it", "nothing was done")
				eq(t, "writes", writes(rig), 0)
				rec := lastFinal(audits(t, mute, "refund_items", 1))
				eq(t, "audit: ignored", rec.Ignored, "inputResponses without a requestState")
				eq(t, "audit: approval", rec.Approval, "refused: the client cannot elicit")
			})
		}
	}
}

// inputRequest calls a confirm tool as a client that handles the input
// request itself (multi-round-trip off) and returns the request state.
func inputRequest(t *testing.T, srv *testkit.Server, tool, q string) string {
	t.Helper()
	res := callParams(t, srv, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"quote_id": q}})
	if !res.NeedsInput() || res.InputRequests["approval"] == nil || res.RequestState == "" {
		t.Fatalf("want an approval request, got: %s (isError %v)", testkit.Text(res), res.IsError)
	}
	return res.RequestState
}

// manual is a client that sees input requests instead of answering them.
func manual() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		// Declares the elicitation capability; never called.
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, fmt.Errorf("not used")
		},
	}
}

// TestHostileRequestState: a requestState counts for the call it was
// issued to, once. A tampered state, a replayed one (after the run, after
// a decline), one issued for another quote or by another server process,
// and an expired one are no approval; while a quote awaits its answer,
// other confirms of it do nothing.
func TestHostileRequestState(t *testing.T) {
	for _, sv := range backofficeServers() {
		for _, tr := range []string{"stdio", "stateless"} {
			t.Run(sv.kind+"/"+tr, func(t *testing.T) {
				rig := newShop(t)
				srv := startBackoffice(t, sv, tr, rig, manual())
				answer := func(q, state string, action string) *mcp.CallToolResult {
					return callParams(t, srv, &mcp.CallToolParams{Name: "refund_items", Arguments: map[string]any{"quote_id": q},
						InputResponses: mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: action}}, RequestState: state})
				}
				q1 := quote5531(t, srv)
				s1 := inputRequest(t, srv, "refund_items", q1)

				// While the person is asked, another confirm does nothing.
				res := srv.Call(t, "refund_items", map[string]any{"quote_id": q1})
				contains(t, testkit.Text(res), "Quote "+q1+" is being carried out by another call", "This call did nothing")
				// A tampered state: the signature no longer matches.
				tampered := s1[:len(s1)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(s1, "AA")]
				res = answer(q1, tampered, "accept")
				contains(t, testkit.Text(res), "is being carried out by another call")
				eq(t, "writes", writes(rig), 0)

				res = answer(q1, s1, "accept")
				eq(t, "accepted", res.IsError, false)
				eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
				before := writes(rig)
				res = answer(q1, s1, "accept")
				contains(t, testkit.Text(res), "Quote "+q1+" was already carried out")
				eq(t, "writes after a replay", writes(rig), before)

				// A replay after a decline asks afresh; it runs nothing.
				q2 := quoteID(t, srv.Call(t, "quote_refund", map[string]any{"order_id": "5532", "line_item_ids": []string{"li_3"}}))
				s2 := inputRequest(t, srv, "refund_items", q2)
				res = answer(q2, s2, "decline")
				contains(t, testkit.Text(res), "The user declined", "stays valid")
				res = answer(q2, s2, "accept")
				if !res.NeedsInput() || res.RequestState == s2 {
					t.Fatalf("a replayed declined state: want a new approval request, got %s", testkit.Text(res))
				}
				eq(t, "writes after the replay", writes(rig), before)
				// A state issued for another quote is no answer for this one.
				q3 := quoteID(t, srv.Call(t, "quote_refund", map[string]any{"order_id": "5533", "line_item_ids": []string{"li_6"}}))
				res = answer(q3, res.RequestState, "accept")
				if !res.NeedsInput() {
					t.Fatalf("a state of another quote was taken: %s", testkit.Text(res))
				}
				eq(t, "writes with a state of another quote", writes(rig), before)
				recs := audits(t, srv, "refund_items", 9)
				eq(t, "audit: ignored answers", ignored(recs), "requestState not issued by this server|requestState already answered or lapsed|requestState issued for another quote or tool")

				// A state from another server process (another key).
				other := startBackoffice(t, sv, tr, rig, manual())
				q4 := quote5531Other(t, other)
				res = callParams(t, other, &mcp.CallToolParams{Name: "refund_items", Arguments: map[string]any{"quote_id": q4}, InputResponses: accept, RequestState: s1})
				if !res.NeedsInput() {
					t.Fatalf("a state of another server was taken: %s", testkit.Text(res))
				}
				// Its kid names another key: told from a forgery in the audit log.
				eq(t, "audit: foreign state", ignored(audits(t, other, "refund_items", 1)), "requestState signed with another approval key")
				eq(t, "writes with a foreign state", writes(rig), before)
			})
		}
	}
}

// quote5531Other quotes an item still open after TestHostileRequestState's
// refunds.
func quote5531Other(t *testing.T, srv *testkit.Server) string {
	t.Helper()
	return quoteID(t, srv.Call(t, "quote_refund", map[string]any{"order_id": "5532", "line_item_ids": []string{"li_4"}}))
}

// TestHostileExpiredRequestState: an answer that comes after the quote
// expired (the request expires with it) runs nothing.
func TestHostileExpiredRequestState(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			srv := startBackoffice(t, sv, "stdio", rig, manual(), "--quote-ttl", "1s")
			q := quote5531(t, srv)
			s := inputRequest(t, srv, "refund_items", q)
			time.Sleep(1500 * time.Millisecond)
			res := callParams(t, srv, &mcp.CallToolParams{Name: "refund_items", Arguments: map[string]any{"quote_id": q}, InputResponses: accept, RequestState: s})
			contains(t, testkit.Text(res), "Quote "+q+" expired at")
			eq(t, "writes", writes(rig), 0)
			rec := lastFinal(audits(t, srv, "refund_items", 2))
			eq(t, "audit: outcome", rec.Outcome, "error")
			eq(t, "audit: calls", len(rec.Calls), 0)
		})
	}
}

// slowApprover answers after a pause, counting the prompts.
func slowApprover(prompts *atomic.Int32) *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		prompts.Add(1)
		time.Sleep(300 * time.Millisecond)
		return &mcp.ElicitResult{Action: "accept"}, nil
	}}
}

// TestHostileConcurrentConfirms: twenty concurrent confirms of one quote
// ask the person once and write once; the others are told another call is
// carrying it out and that they did nothing.
func TestHostileConcurrentConfirms(t *testing.T) {
	for _, sv := range backofficeServers() {
		for _, tr := range []string{"stdio", "http"} {
			t.Run(sv.kind+"/"+tr, func(t *testing.T) {
				rig := newShop(t)
				var prompts atomic.Int32
				srv := startBackoffice(t, sv, tr, rig, slowApprover(&prompts))
				q := quote5531(t, srv)
				ok, busy := tally(t, callAtOnce(t, srv, 20, "refund_items", map[string]any{"quote_id": q}), "is being carried out by another call", "This call did nothing")
				eq(t, "successful confirms", ok, 1)
				eq(t, "told another call has it", busy, 19)
				eq(t, "prompts", int(prompts.Load()), 1)
				eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
				eq(t, "writes (one cancel, one refund)", writes(rig), 2)
				recs := finals(audits(t, srv, "refund_items", 21))
				held := 0
				for _, r := range recs {
					if r.Approval == "not asked: the quote is reserved by another call" && len(r.Calls) == 0 {
						held++
					}
				}
				eq(t, "audit: confirms that found the quote reserved", held, 19)
			})
		}
	}
}

// tally counts the results that succeeded and the errors that say all of
// busy; any other result fails the test.
func tally(t *testing.T, results []*mcp.CallToolResult, busy ...string) (ok, held int) {
	t.Helper()
	for _, r := range results {
		text := testkit.Text(r)
		switch {
		case !r.IsError:
			ok++
		case containsAll(text, busy...):
			held++
		default:
			t.Errorf("unexpected result: %s", text)
		}
	}
	return ok, held
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// hangingCancel is a shop whose first cancel is applied, then answered
// only after hang: past the server's timeout, the outcome is unknown.
func hangingCancel(t *testing.T, rig *shopRig, hang time.Duration) (keys func() []string) {
	var mu sync.Mutex
	var seen []string
	h := rig.shop.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/cancel") {
			mu.Lock()
			seen = append(seen, r.Header.Get("Idempotency-Key"))
			first := len(seen) == 1
			mu.Unlock()
			if first {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				time.Sleep(hang)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	rig.url = srv.URL
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestHostileResumeAfterUnknownOutcome: the backend applies the cancel and
// then hangs past the timeout. The model is told the cancel's outcome is
// unknown and the refund did not run (never "Nothing was done"); calling
// refund_items again sends the cancel again with the same Idempotency-Key,
// then the refund, and asks no second approval.
func TestHostileResumeAfterUnknownOutcome(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			keys := hangingCancel(t, rig, 1500*time.Millisecond)
			person := &approver{action: "accept"}
			srv := startBackoffice(t, sv, "stdio", rig, person.options(), "--timeout", "400ms")
			q := quote5531(t, srv)
			res := srv.Call(t, "refund_items", map[string]any{"quote_id": q})
			eq(t, "isError", res.IsError, true)
			text := testkit.Text(res)
			contains(t, text, "Only part of refund_items was done.",
				"Outcome unknown (sent, but no answer says whether the API applied it): step cancel.",
				"Did not run: step refund.", "did not answer within 400ms",
				"Calling refund_items again with quote_id "+q+" finishes it")
			for _, bad := range []string{"Nothing was done", "/orders/5531", "already carried out"} {
				if strings.Contains(text, bad) {
					t.Errorf("the result says %q:\n%s", bad, text)
				}
			}
			eq(t, "the cancel took effect", rig.shop.LineItem("5531", "li_2").Status, "cancelled")
			eq(t, "no refund yet", len(rig.shop.Refunds("5531")), 0)
			rec := lastFinal(audits(t, srv, "refund_items", 2))
			eq(t, "audit: outcome", rec.Outcome, "error")
			eq(t, "audit: failed step", rec.Failed, "cancel")
			if len(rec.Calls) != 1 || rec.Calls[0].Outcome != "unknown" {
				t.Errorf("audit calls: %+v", rec.Calls)
			}

			res = srv.Call(t, "refund_items", map[string]any{"quote_id": q})
			eq(t, "resumed", res.IsError, false)
			contains(t, testkit.Text(res), "Cancelled shipment of Headphone case ×1; refunded NT$230")
			eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
			eq(t, "cancel keys", strings.Join(keys(), ","), q+"-li_2,"+q+"-li_2")
			person.mu.Lock()
			eq(t, "prompts", len(person.questions), 1)
			person.mu.Unlock()
			rec = lastFinal(audits(t, srv, "refund_items", 3))
			eq(t, "audit: resumed", rec.Approval, "resumed")
			eq(t, "audit: outcome", rec.Outcome, "ok")
			eq(t, "audit: created", strings.Join(rec.Created, ","), "rf_8801")
		})
	}
}

// TestHostileDeclineKeepsQuote: a decline runs nothing and releases the
// quote: the next confirm asks again and runs.
func TestHostileDeclineKeepsQuote(t *testing.T) {
	for _, sv := range backofficeServers() {
		for _, tr := range approvalTransports {
			t.Run(sv.kind+"/"+tr, func(t *testing.T) {
				rig := newShop(t)
				person := &approver{action: "decline"}
				srv := startBackoffice(t, sv, tr, rig, person.options())
				q := quote5531(t, srv)
				res := srv.Call(t, "refund_items", map[string]any{"quote_id": q})
				contains(t, testkit.Text(res), "The user declined", "Nothing was done", "quote "+q+" stays valid")
				eq(t, "writes", writes(rig), 0)
				person.mu.Lock()
				person.action = "accept"
				person.mu.Unlock()
				res = srv.Call(t, "refund_items", map[string]any{"quote_id": q})
				eq(t, "accepted", res.IsError, false)
				eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
				person.mu.Lock()
				eq(t, "prompts", len(person.questions), 2)
				person.mu.Unlock()
				recs := finals(audits(t, srv, "refund_items", 4))
				eq(t, "audit", recs[0].Approval+","+recs[1].Approval, "decline,accept")
			})
		}
	}
}

// TestHostileUnidentifiedConfirm: a session without identity is told it
// is not identified, not that the quote is someone else's.
func TestHostileUnidentifiedConfirm(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			srv := startBackoffice(t, sv, "http", rig, (&approver{action: "accept"}).options())
			q := quote5531(t, srv)
			anon := srv.Connect(t, nil, (&approver{action: "accept"}).options())
			res := anon.Call(t, "refund_items", map[string]any{"quote_id": q})
			eq(t, "isError", res.IsError, true)
			contains(t, testkit.Text(res), "This session is not identified", "Nothing was done")
			if strings.Contains(testkit.Text(res), "another") {
				t.Errorf("the result blames another caller: %s", testkit.Text(res))
			}
			eq(t, "writes", writes(rig), 0)
		})
	}
}

// TestHostileForEachNotAList: a quote whose list to run over is not a list
// stops the confirm before any write, and before the person is asked.
func TestHostileForEachNotAList(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			h := rig.shop.Handler()
			bent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !strings.HasSuffix(r.URL.Path, "/refund-quotes") {
					h.ServeHTTP(w, r)
					return
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				var body map[string]any
				json.Unmarshal(rec.Body.Bytes(), &body)
				body["cancel_line_item_ids"] = "li_2"
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(body)
			}))
			t.Cleanup(bent.Close)
			rig.url = bent.URL
			person := &approver{action: "accept"}
			srv := startBackoffice(t, sv, "stdio", rig, person.options())
			q := quote5531(t, srv)
			res := srv.Call(t, "refund_items", map[string]any{"quote_id": q})
			eq(t, "isError", res.IsError, true)
			contains(t, testkit.Text(res), "Nothing was done", "Step cancel runs once per element of .quote.body.cancel_line_item_ids, which is a string here, not a list")
			eq(t, "writes", writes(rig), 0)
			eq(t, "questions asked", len(person.questions), 0)
			rec := lastFinal(audits(t, srv, "refund_items", 1))
			eq(t, "audit: failed", rec.Failed, "cancel")
			eq(t, "audit: approval", rec.Approval, "")
			eq(t, "audit: calls", len(rec.Calls), 0)
		})
	}
}

// TestHostileFailedApprovalReleases: when asking the person fails (the
// client's elicitation errs), the quote is given back: the next confirm
// asks again instead of finding it reserved.
func TestHostileFailedApprovalReleases(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			var asked atomic.Int32
			opts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				if asked.Add(1) == 1 {
					return nil, fmt.Errorf("the approval dialog crashed")
				}
				return &mcp.ElicitResult{Action: "accept"}, nil
			}}
			srv := startBackoffice(t, sv, "http", rig, opts)
			q := quote5531(t, srv)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := srv.Session.CallTool(ctx, &mcp.CallToolParams{Name: "refund_items", Arguments: map[string]any{"quote_id": q}}); err == nil {
				t.Fatal("the failed approval round trip did not fail the call")
			}
			eq(t, "writes", writes(rig), 0)
			res := srv.Call(t, "refund_items", map[string]any{"quote_id": q})
			eq(t, "the second confirm", res.IsError, false)
			eq(t, "prompts", int(asked.Load()), 2)
			eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
			contains(t, srv.Stderr(), `"msg":"approval request failed; quote released"`)
		})
	}
}

// TestHostileReadsAreNotEffects: a composed read-only tool that fails
// part-way says nothing was changed; its reads are not reported as
// changes that took effect.
func TestHostileReadsAreNotEffects(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			h := rig.shop.Handler()
			broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/refunds") {
					w.WriteHeader(http.StatusBadRequest)
					return
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(broken.Close)
			rig.url = broken.URL
			srv := startBackoffice(t, sv, "stdio", rig, nil)
			res := srv.Call(t, "order_status", map[string]any{"order_id": "5531"})
			eq(t, "isError", res.IsError, true)
			text := testkit.Text(res)
			contains(t, text, "Nothing was done: step refunds failed before any change took effect.")
			if strings.Contains(text, "Took effect") || strings.Contains(text, "/orders/5531") {
				t.Errorf("reads reported as effects, or the path printed:\n%s", text)
			}
		})
	}
}

// TestHostileQuoteHoarding: a caller that quotes again and again without
// carrying anything out is stopped at its own bound of open quotes, with
// a result that says what to do, while another caller can still quote;
// carrying one of its quotes out makes room again.
func TestHostileQuoteHoarding(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			srv := startBackoffice(t, sv, "http", rig, (&approver{action: "accept"}).options(), "--max-quotes-per-caller", "3")
			var held []string
			for range 3 {
				held = append(held, quote5531(t, srv))
			}
			res := srv.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}})
			eq(t, "fourth open quote: isError", res.IsError, true)
			eq(t, "fourth open quote", testkit.Text(res), "The result was computed, but this caller already holds as many open quotes as one caller may, so no quote was stored and nothing can be carried out from it. Nothing was changed. Carry out the earlier quotes still needed, or wait until unused ones expire, then call quote_refund again.")

			lee := srv.Connect(t, asCustomer(backend.Lee), nil)
			res = lee.Call(t, "quote_refund", map[string]any{"order_id": "6001", "line_item_ids": []string{"li_20"}})
			eq(t, "another caller quotes: isError", res.IsError, false)

			// A new session of the same caller is the same caller.
			again := srv.Connect(t, asCustomer(backend.Wang), nil)
			res = again.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}})
			eq(t, "same caller, new session: isError", res.IsError, true)

			res = callParams(t, srv, &mcp.CallToolParams{Name: "refund_items", Arguments: map[string]any{"quote_id": held[0]}, InputResponses: accept})
			eq(t, "confirm: isError", res.IsError, false)
			quote5531Other(t, srv)
			eq(t, "writes", writes(rig) > 0, true)
		})
	}
}
