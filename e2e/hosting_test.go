package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/testkit"
)

// A second domain, cloud hosting (testdata/e2e/hosting): a plan change is
// priced by the API and carried out exactly as priced, the account comes
// from the caller, error rules and result templates with numeric
// conditions. It shows that nothing the model reads from tailor's own
// behaviour belongs to the shop.

const (
	hostAccount = "acc_7"
	// The API key has characters that URL encoding and JSON escaping
	// change, so that a leak in any of those forms shows.
	hostKey      = `hk_live+9/Z="q"&x`
	hostUser     = "panel-svc"
	hostPassword = "pw:Secret/42"
)

// hostingServers are the hosting tool set, generated and served.
func hostingServers() []server { return hosting.servers() }

// hostingEnv configures a server for the account over stdio.
func hostingEnv(baseURL string) []string {
	return []string{
		"HOSTING_BASE_URL=" + baseURL,
		"HOSTING_ACCOUNT_ID=" + hostAccount,
		"HOSTING_API_KEY=" + hostKey,
		"HOSTING_BASIC_AUTH_USERNAME=" + hostUser,
		"HOSTING_BASIC_AUTH_PASSWORD=" + hostPassword,
	}
}

type hServer struct {
	ID, Name, Plan, Region string
	Price                  float64
	DiskGB                 int
}

type hChange struct {
	Key, ChangeID, ServerID, Plan string
	Charged, Credit               float64
}

// hostingAPI is the hosting backend: servers, plans and their prices, and
// the rules a plan change follows. Override replaces every answer (the
// hostile cases); every request is recorded either way.
type hostingAPI struct {
	mu       sync.Mutex
	servers  map[string]*hServer
	changes  []hChange
	received []testkit.Received
	override http.HandlerFunc
	// routes are the API's own handlers, for an override to fall back on.
	routes *http.ServeMux
	*httptest.Server
}

var planPrice = map[string]float64{"small": 10, "medium": 40, "large": 120}
var planDisk = map[string]int{"small": 25, "medium": 80, "large": 200}

func newHostingAPI(t *testing.T) *hostingAPI {
	h := &hostingAPI{servers: map[string]*hServer{
		"srv_1": {ID: "srv_1", Name: "web-1", Plan: "small", Region: "us-east", Price: 10, DiskGB: 20},
		"srv_2": {ID: "srv_2", Name: "db-1", Plan: "medium", Region: "us-east", Price: 40, DiskGB: 60},
		"srv_3": {ID: "srv_3", Name: "cache-1", Plan: "large", Region: "ap-south", Price: 120, DiskGB: 20},
		"srv_4": {ID: "srv_4", Name: "sandbox", Plan: "small", Region: "us-east", Price: 0, DiskGB: 5},
	}}
	mux := http.NewServeMux()
	h.routes = mux
	mux.HandleFunc("GET /v2/accounts/{acc}/servers", h.list)
	mux.HandleFunc("GET /v2/accounts/{acc}/servers/{id}", h.get)
	mux.HandleFunc("POST /v2/accounts/{acc}/servers/{id}/plan-quotes", h.quote)
	mux.HandleFunc("PUT /v2/accounts/{acc}/servers/{id}/plan", h.change)
	mux.HandleFunc("POST /v2/accounts/{acc}/servers/{id}/restart", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 202, map[string]any{"restart_id": "rs_1", "status": "restarting"})
	})
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		h.mu.Lock()
		h.received = append(h.received, testkit.Received{Method: r.Method, RawPath: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
		override := h.override
		h.mu.Unlock()
		if override != nil {
			override(w, r)
			return
		}
		user, pass, _ := r.BasicAuth()
		if r.URL.Query().Get("api_key") != hostKey || user != hostUser || pass != hostPassword {
			reply(w, 401, map[string]any{"code": "unauthorized", "detail": "bad credentials"})
			return
		}
		if acc := r.PathValue("acc"); acc != "" && acc != hostAccount {
			reply(w, 404, map[string]any{"code": "not_found", "detail": "no account " + acc})
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(h.Close)
	return h
}

// URL is the API's base URL.
func (h *hostingAPI) URL() string { return h.Server.URL + "/v2" }

func (h *hostingAPI) handle(f http.HandlerFunc) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.override = f
}

func (h *hostingAPI) take() []testkit.Received {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.received
	h.received = nil
	return out
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (h *hostingAPI) server(w http.ResponseWriter, r *http.Request) *hServer {
	s := h.servers[r.PathValue("id")]
	if s == nil {
		reply(w, 404, map[string]any{"code": "not_found", "detail": "no server " + r.PathValue("id")})
	}
	return s
}

func serverJSON(s *hServer) map[string]any {
	return map[string]any{"server_id": s.ID, "name": s.Name, "plan": s.Plan, "status": "running", "region": s.Region, "monthly_price": s.Price, "disk_gb": s.DiskGB}
}

func (h *hostingAPI) list(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []any
	for _, id := range []string{"srv_1", "srv_2", "srv_3", "srv_4"} {
		out = append(out, serverJSON(h.servers[id]))
	}
	reply(w, 200, map[string]any{"servers": out})
}

func (h *hostingAPI) get(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.server(w, r); s != nil {
		reply(w, 200, serverJSON(s))
	}
}

// price is what moving s to plan costs now (half the billing period is
// left): a charge for an upgrade, a credit for a downgrade; or the rule
// that forbids it.
func price(s *hServer, plan string) (charge, credit float64, status int, problem map[string]any) {
	switch {
	case s.Region == "ap-south" && plan == "medium":
		return 0, 0, 409, map[string]any{"code": "plan_unavailable", "detail": "The medium plan is sold out in ap-south."}
	case s.DiskGB > planDisk[plan]:
		return 0, 0, 422, map[string]any{"code": "disk_too_large", "detail": fmt.Sprintf("%s uses %d GB of disk and the %s plan holds %d GB", s.ID, s.DiskGB, plan, planDisk[plan])}
	}
	diff := (planPrice[plan] - planPrice[s.Plan]) / 2
	if diff >= 0 {
		return diff, 0, 0, nil
	}
	return 0, -diff, 0, nil
}

func (h *hostingAPI) quote(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.server(w, r)
	if s == nil {
		return
	}
	var in struct{ Plan string }
	json.NewDecoder(r.Body).Decode(&in)
	charge, credit, status, problem := price(s, in.Plan)
	if problem != nil {
		reply(w, status, problem)
		return
	}
	reply(w, 200, map[string]any{"server_id": s.ID, "from_plan": s.Plan, "to_plan": in.Plan, "prorated_charge": charge, "credit": credit,
		"currency": "USD", "explanation": fmt.Sprintf("%s costs %.0f a month and %s %.0f; half of this month is left.", s.Plan, planPrice[s.Plan], in.Plan, planPrice[in.Plan])})
}

func (h *hostingAPI) change(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.server(w, r)
	if s == nil {
		return
	}
	key := r.Header.Get("Idempotency-Key")
	for _, c := range h.changes {
		if key != "" && c.Key == key {
			reply(w, 200, map[string]any{"change_id": c.ChangeID, "server_id": c.ServerID, "plan": c.Plan, "charged": c.Charged, "credit_applied": c.Credit})
			return
		}
	}
	var in struct {
		Plan           string
		ExpectedCharge float64 `json:"expected_charge"`
	}
	json.NewDecoder(r.Body).Decode(&in)
	charge, credit, status, problem := price(s, in.Plan)
	if problem != nil {
		reply(w, status, problem)
		return
	}
	if charge != in.ExpectedCharge {
		reply(w, 409, map[string]any{"code": "price_changed", "detail": fmt.Sprintf("the charge is now %.2f", charge)})
		return
	}
	c := hChange{Key: key, ChangeID: fmt.Sprintf("chg_%d", len(h.changes)+1), ServerID: s.ID, Plan: in.Plan, Charged: charge, Credit: credit}
	h.changes = append(h.changes, c)
	s.Plan, s.Price = in.Plan, planPrice[in.Plan]
	reply(w, 200, map[string]any{"change_id": c.ChangeID, "server_id": s.ID, "plan": s.Plan, "charged": charge, "credit_applied": credit, "effective_at": "2026-10-05T14:00:00Z"})
}

// shopWords are words of the shop domain: a hosting server must never show
// them to the model, so none may come from tailor's built-in texts.
var shopWords = regexp.MustCompile(`(?i)\b(orders?|customers?|refunds?|back[ -]?office|shop|line items?|coupons?)\b`)

// reader collects every text the model (or the person approving) read.
type reader struct {
	mu    sync.Mutex
	texts []string
}

func (r *reader) read(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	text := testkit.Text(res)
	r.mu.Lock()
	r.texts = append(r.texts, text, testkit.Structured(res))
	r.mu.Unlock()
	return text
}

func (r *reader) noShopWords(t *testing.T, extra ...string) {
	t.Helper()
	for _, s := range append(r.texts, extra...) {
		if w := shopWords.FindString(s); w != "" {
			t.Errorf("the model read the shop's word %q in a hosting server:\n%s", w, s)
		}
	}
}

func TestHostingDomain(t *testing.T) {
	for _, sv := range hostingServers() {
		t.Run(sv.kind, func(t *testing.T) {
			api := newHostingAPI(t)
			ap := &approver{action: "accept"}
			bin, pre := sv.command(t)
			srv := testkit.StartStdioClient(t, bin, hostingEnv(api.URL()), ap.options(), pre...)
			rd := &reader{}
			call := func(name string, args map[string]any) (*mcp.CallToolResult, string) {
				t.Helper()
				res := srv.Call(t, name, args)
				return res, rd.read(t, res)
			}

			_, text := call("list_servers", nil)
			eq(t, "list", strings.SplitN(text, "\n", 2)[0], "4 servers.")
			last := api.take()[0]
			eq(t, "account from the context", last.RawPath, "/v2/accounts/acc_7/servers")
			user, pass, _ := (&http.Request{Header: last.Header}).BasicAuth()
			eq(t, "basic credentials", user+":"+pass, hostUser+":"+hostPassword)
			contains(t, last.Query, "api_key=")

			// Numbers in conditions: 0 is false, comparisons are numeric.
			_, text = call("get_server", map[string]any{"server_id": "srv_4"})
			eq(t, "a free server", strings.SplitN(text, "\n", 2)[0], "sandbox (srv_4) runs the small plan at no charge.")
			_, text = call("get_server", map[string]any{"server_id": "srv_2"})
			eq(t, "a paid server with a large disk", strings.SplitN(text, "\n", 2)[0], "db-1 (srv_2) runs the medium plan at 40 a month, with a large disk of 60 GB.")

			// An upgrade: a charge, no credit.
			res, text := call("quote_plan_change", map[string]any{"server_id": "srv_1", "plan": "medium"})
			q := quoteID(t, res)
			contains(t, text, "Moving srv_1 from small to medium: a charge of 15 USD now. small costs 10 a month",
				"Price "+q+" holds until", "call change_plan with quote_id "+q+" only once they agree")
			if strings.Contains(strings.SplitN(text, "\n", 2)[0], "credit") {
				t.Errorf("a credit of 0 is shown: %s", text)
			}
			api.take()
			res, text = call("change_plan", map[string]any{"quote_id": q})
			eq(t, "isError", res.IsError, false)
			eq(t, "changed", strings.SplitN(text, "\n", 2)[0], "web-1 now runs the medium plan (change chg_1); charged 15.")
			eq(t, "approval question", strings.Join(ap.questions, "|"), "Move srv_1 to the medium plan for 15 USD?")
			sent := api.take()
			if len(sent) != 2 || sent[0].Method != http.MethodPut || sent[0].Header.Get("Idempotency-Key") != q || !strings.Contains(sent[0].Body, `"expected_charge":15`) {
				t.Fatalf("the change sent: %+v", sent)
			}
			eq(t, "check step", sent[1].RawPath, "/v2/accounts/acc_7/servers/srv_1")

			// A downgrade: no charge, a credit.
			res, text = call("quote_plan_change", map[string]any{"server_id": "srv_3", "plan": "small"})
			contains(t, text, "Moving srv_3 from large to small: no charge, and a credit of 55 USD.")
			res, text = call("change_plan", map[string]any{"quote_id": quoteID(t, res)})
			eq(t, "credited", strings.SplitN(text, "\n", 2)[0], "cache-1 now runs the small plan (change chg_2); credited 55.")

			// A business rule's refusal is not presented as a wrong argument.
			res, text = call("quote_plan_change", map[string]any{"server_id": "srv_2", "plan": "small"})
			eq(t, "isError", res.IsError, true)
			contains(t, text, "refused the request (HTTP 422", "srv_2 uses 60 GB of disk", "rule of the service", "tell the user why")
			if strings.Contains(text, "Correct the argument it names") {
				t.Errorf("a business rule reads as a wrong argument: %s", text)
			}
			// The overlay's rule, and its server-wide message override.
			_, text = call("quote_plan_change", map[string]any{"server_id": "srv_1", "plan": "medium"})
			res, text = call("quote_plan_change", map[string]any{"server_id": "srv_2", "plan": "large"})
			eq(t, "isError", res.IsError, false)
			_, text = call("get_server", map[string]any{"server_id": "srv_9"})
			eq(t, "not found, as the overlay says", text, "Nothing found (HTTP 404 Not Found). no server srv_9; code: \"not_found\". Use list_servers for the exact server ids; do not guess them.")
			srv3 := api.servers["srv_3"]
			api.mu.Lock()
			srv3.Plan = "large"
			api.mu.Unlock()
			res, text = call("quote_plan_change", map[string]any{"server_id": "srv_3", "plan": "medium"})
			eq(t, "rule", text, "The medium plan is sold out in ap-south. Nothing was changed; offer the user another plan.")

			// Quotes: used once, unknown ids, declined approval.
			_, text = call("change_plan", map[string]any{"quote_id": q})
			contains(t, text, "Quote "+q+" was already carried out", "Check the current state with a read-only tool")
			_, text = call("change_plan", map[string]any{"quote_id": "q_nothere00"})
			contains(t, text, `There is no quote "q_nothere00"`, "Quote ids come from quote_plan_change")
			res, _ = call("quote_plan_change", map[string]any{"server_id": "srv_4", "plan": "medium"})
			ap.mu.Lock()
			ap.action = "decline"
			ap.mu.Unlock()
			_, text = call("change_plan", map[string]any{"quote_id": quoteID(t, res)})
			contains(t, text, "The user declined", "Nothing was done")
			eq(t, "srv_4 unchanged", api.servers["srv_4"].Plan, "small")

			// A validation error names the argument.
			_, text = call("quote_plan_change", map[string]any{"server_id": "srv_1", "plan": "huge"})
			contains(t, text, "Invalid arguments for quote_plan_change", "`plan`", "Nothing was sent")

			rd.noShopWords(t, ap.questions...)
			audit := auditLines(t, srv, "change_plan", 1, `"created":["chg_1"]`)
			contains(t, audit[0], `"identity":{"account_id":"acc_7"}`, `"approval":"accept"`)
		})
	}
}

// TestHostingUsedQuotesLeaveRoom: quotes carried out do not take the room
// of new ones: a server bounded to 2 open quotes carries out 6 in a row.
// A replayed confirm of a recent one still hears "already carried out";
// past --max-used-quotes the oldest is forgotten ("no quote"), and quotes
// left open are still bounded.
func TestHostingUsedQuotesLeaveRoom(t *testing.T) {
	for _, sv := range hostingServers() {
		t.Run(sv.kind, func(t *testing.T) {
			api := newHostingAPI(t)
			bin, pre := sv.command(t)
			srv := testkit.StartStdioClient(t, bin, hostingEnv(api.URL()), (&approver{action: "accept"}).options(),
				append(pre, "--max-quotes", "2", "--max-used-quotes", "3")...)
			rd := &reader{}
			var used []string
			for i, plan := range []string{"medium", "small", "medium", "small", "medium", "small"} {
				res := srv.Call(t, "quote_plan_change", map[string]any{"server_id": "srv_1", "plan": plan})
				eq(t, fmt.Sprint("quote ", i, ": isError"), res.IsError, false)
				q := quoteID(t, res)
				res = srv.Call(t, "change_plan", map[string]any{"quote_id": q})
				eq(t, fmt.Sprint("confirm ", i), strings.SplitN(rd.read(t, res), "\n", 2)[0],
					fmt.Sprintf("web-1 now runs the %s plan (change chg_%d)%s", plan, i+1, map[string]string{"medium": "; charged 15.", "small": "; credited 15."}[plan]))
				used = append(used, q)
			}
			eq(t, "changes made", len(api.changes), 6)
			for _, q := range used[3:] {
				res := srv.Call(t, "change_plan", map[string]any{"quote_id": q})
				eq(t, "replay: isError", res.IsError, true)
				contains(t, rd.read(t, res), "Quote "+q+" was already carried out", "Check the current state with a read-only tool")
			}
			res := srv.Call(t, "change_plan", map[string]any{"quote_id": used[0]})
			eq(t, "replay of a forgotten quote: isError", res.IsError, true)
			contains(t, rd.read(t, res), "There is no quote \""+used[0]+"\"", "Nothing was done")
			eq(t, "changes made after the replays", len(api.changes), 6)

			for i := range 2 {
				res := srv.Call(t, "quote_plan_change", map[string]any{"server_id": "srv_2", "plan": "large"})
				eq(t, fmt.Sprint("open quote ", i, ": isError"), res.IsError, false)
			}
			res = srv.Call(t, "quote_plan_change", map[string]any{"server_id": "srv_2", "plan": "large"})
			eq(t, "third open quote: isError", res.IsError, true)
			contains(t, rd.read(t, res), "holds as many open quotes as it may", "Nothing was changed")
			rd.noShopWords(t)
		})
	}
}

// TestHostingWithoutElicitation: the approval refusal, in a client that
// cannot ask the person, speaks of no particular business either.
func TestHostingWithoutElicitation(t *testing.T) {
	for _, sv := range hostingServers() {
		t.Run(sv.kind, func(t *testing.T) {
			api := newHostingAPI(t)
			srv := sv.stdio(t, hostingEnv(api.URL()))
			rd := &reader{}
			res := srv.Call(t, "quote_plan_change", map[string]any{"server_id": "srv_1", "plan": "large"})
			rd.read(t, res)
			res = srv.Call(t, "change_plan", map[string]any{"quote_id": quoteID(t, res)})
			text := rd.read(t, res)
			eq(t, "isError", res.IsError, true)
			contains(t, text, "needs the user's explicit approval", "Move srv_1 to the large plan for 55 USD?", "nothing was done")
			eq(t, "srv_1 unchanged", api.servers["srv_1"].Plan, "small")
			rd.noShopWords(t)
		})
	}
}

// TestHostingClientGuarantees: the hostile-client guarantees hold in the
// second domain too, in its own words: inputResponses without the
// server's requestState are no approval; the price is reserved before the
// person is asked, so another confirm does nothing (in the overlay's
// wording of that message); a requestState counts once; concurrent
// confirms ask once and change once; and a change the API applied before
// timing out is finished by calling change_plan again, with the same
// Idempotency-Key and no second question.
func TestHostingClientGuarantees(t *testing.T) {
	for _, sv := range hostingServers() {
		t.Run(sv.kind, func(t *testing.T) {
			api := newHostingAPI(t)
			bin, pre := sv.command(t)
			rd := &reader{}
			changes := func() int {
				api.mu.Lock()
				defer api.mu.Unlock()
				return len(api.changes)
			}
			price := func(srv *testkit.Server, id, plan string) string {
				res := srv.Call(t, "quote_plan_change", map[string]any{"server_id": id, "plan": plan})
				rd.read(t, res)
				return quoteID(t, res)
			}

			// A client that sees the approval request itself.
			srv := testkit.StartStdioClient(t, bin, hostingEnv(api.URL()), manual(), pre...)
			q := price(srv, "srv_1", "medium")
			res := callParams(t, srv, &mcp.CallToolParams{Name: "change_plan", Arguments: map[string]any{"quote_id": q}, InputResponses: accept})
			rd.read(t, res)
			if !res.NeedsInput() || res.RequestState == "" {
				t.Fatalf("a self-approval was taken: %s", testkit.Text(res))
			}
			state := res.RequestState
			eq(t, "changes after a self-approval", changes(), 0)
			// Reserved while the person is asked: another confirm does nothing.
			text := rd.read(t, srv.Call(t, "change_plan", map[string]any{"quote_id": q}))
			eq(t, "reserved", text, "Price "+q+" is being carried out by another call right now (its approval may be pending). This call changed nothing; wait for that call's result.")
			answer := func(action string) *mcp.CallToolResult {
				res := callParams(t, srv, &mcp.CallToolParams{Name: "change_plan", Arguments: map[string]any{"quote_id": q},
					InputResponses: mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: action}}, RequestState: state})
				rd.read(t, res)
				return res
			}
			res = answer("accept")
			eq(t, "accepted", res.IsError, false)
			contains(t, testkit.Text(res), "web-1 now runs the medium plan (change chg_1)")
			eq(t, "changes", changes(), 1)
			// The same state again: no second change.
			res = answer("accept")
			contains(t, testkit.Text(res), "Quote "+q+" was already carried out")
			eq(t, "changes after a replay", changes(), 1)
			eq(t, "audit: ignored", ignored(audits(t, srv, "change_plan", 4)), "inputResponses without a requestState")

			// Eight concurrent confirms of one price: one question, one change.
			var prompts atomic.Int32
			busy := testkit.StartStdioClient(t, bin, hostingEnv(api.URL()), slowApprover(&prompts), pre...)
			q = price(busy, "srv_4", "medium")
			results := callAtOnce(t, busy, 8, "change_plan", map[string]any{"quote_id": q})
			for _, r := range results {
				rd.read(t, r)
			}
			done, held := tally(t, results, "is being carried out by another call right now")
			eq(t, "done", done, 1)
			eq(t, "told another call has it", held, 7)
			eq(t, "prompts", int(prompts.Load()), 1)
			eq(t, "changes", changes(), 2)

			// The API applies the change, then answers only after the
			// server's timeout: the outcome is unknown, and calling again
			// finishes it.
			var mu sync.Mutex
			var keys []string
			api.handle(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPut {
					mu.Lock()
					keys = append(keys, r.Header.Get("Idempotency-Key"))
					first := len(keys) == 1
					mu.Unlock()
					if first {
						api.routes.ServeHTTP(httptest.NewRecorder(), r)
						time.Sleep(1500 * time.Millisecond)
						return
					}
				}
				api.routes.ServeHTTP(w, r)
			})
			person := &approver{action: "accept"}
			slow := testkit.StartStdioClient(t, bin, hostingEnv(api.URL()), person.options(), append(pre, "--timeout", "400ms")...)
			q = price(slow, "srv_2", "large")
			res = slow.Call(t, "change_plan", map[string]any{"quote_id": q})
			text = rd.read(t, res)
			eq(t, "isError", res.IsError, true)
			contains(t, text, "Only part of change_plan was done.", "Outcome unknown (sent, but no answer says whether the API applied it): step apply.",
				"Did not run: step check.", "did not answer within 400ms", "Calling change_plan again with quote_id "+q+" finishes it")
			if strings.Contains(text, "Nothing was done") {
				t.Errorf("an applied change is reported as nothing done: %s", text)
			}
			eq(t, "applied", api.servers["srv_2"].Plan, "large")
			res = slow.Call(t, "change_plan", map[string]any{"quote_id": q})
			text = rd.read(t, res)
			eq(t, "resumed", res.IsError, false)
			eq(t, "finished", strings.SplitN(text, "\n", 2)[0], "db-1 now runs the large plan (change chg_3); charged 40.")
			mu.Lock()
			eq(t, "keys", strings.Join(keys, ","), q+","+q)
			mu.Unlock()
			eq(t, "changes", changes(), 3)
			eq(t, "asked once", person.asked(), 1)
			eq(t, "audit: resumed", lastFinal(audits(t, slow, "change_plan", 3)).Approval, "resumed")

			rd.noShopWords(t, person.questions...)
		})
	}
}

// auditLines waits until the server's stderr holds at least n audit
// records of tool that contain every one of match, and returns those
// records. A call's record can reach stderr after its result reached the
// client, so returning on the first record found would miss later ones.
func auditLines(t *testing.T, srv *testkit.Server, tool string, n int, match ...string) []string {
	t.Helper()
	records := func(stderr string) []string {
		var out []string
		for _, l := range strings.Split(stderr, "\n") {
			if !strings.Contains(l, `"msg":"audit"`) || !strings.Contains(l, `"tool":"`+tool+`"`) {
				continue
			}
			all := true
			for _, m := range match {
				all = all && strings.Contains(l, m)
			}
			if all {
				out = append(out, l)
			}
		}
		return out
	}
	what := fmt.Sprintf("%d audit records of %s with %q", n, tool, match)
	return records(srv.WaitStderr(t, what, func(stderr string) bool { return len(records(stderr)) >= n }))
}
