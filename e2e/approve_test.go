package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/testkit"
)

// Approvals beyond quote/confirm (issue 32): a tool of any kind asks the
// person before anything is sent, bound to the call's exact arguments and
// caller, once; the server-wide --approve policy asks before the tools the
// overlay says nothing about. Every test drives the generated server and
// tailor serve with go-sdk's client acting as the person, against a
// recording loopback backend, and asserts on what the backend received.

var workspace = &built{dir: "approve", pkg: "workspace", curated: true}

const (
	wsTenant = "tenant-7f3a9"
	wsToken  = "tok-secret-5b1e77c2"
)

// wsBackend answers like the workspace API and records every request.
func wsBackend(t *testing.T) *testkit.Backend {
	return testkit.NewBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && strings.Count(r.URL.Path, "/") == 2:
			json.NewEncoder(w).Encode(map[string]any{"project": strings.TrimPrefix(r.URL.Path, "/projects/"), "item_count": 41})
		case r.Method == http.MethodGet:
			w.Write([]byte(`[]`))
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"item_id":"it_1","title":"t"}`))
		case r.Method == http.MethodPatch:
			w.Write([]byte(`{"item_id":"it_1"}`))
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	})
}

// wsWrites are the requests the backend received that change data.
func wsWrites(b *testkit.Backend) []testkit.Received {
	var out []testkit.Received
	for _, r := range b.Take() {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			out = append(out, r)
		}
	}
	return out
}

// startWorkspace runs sv over tr for tenant, as the client opts.
func startWorkspace(t *testing.T, sv server, tr string, b *testkit.Backend, tenant string, opts *mcp.ClientOptions, args ...string) *testkit.Server {
	t.Helper()
	bin, pre := sv.command(t)
	env := []string{"WORKSPACE_BASE_URL=" + b.URL, "WORKSPACE_TOKEN=" + wsToken}
	args = append(pre, args...)
	switch tr {
	case "stdio":
		return testkit.StartStdioClient(t, bin, append(env, "WORKSPACE_TENANT="+tenant), opts, args...)
	case "stateless":
		args = append(args, "--stateless")
	}
	return testkit.StartHTTPOptions(t, bin, env, &http.Client{Transport: headerRoundTripper{"X-Tenant": tenant}}, opts, args...)
}

// person answers every question with action, and records them.
type person struct {
	mu        sync.Mutex
	action    string
	questions []string
}

func (p *person) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.questions = append(p.questions, req.Params.Message)
		return &mcp.ElicitResult{Action: p.action}, nil
	}}
}

func (p *person) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.questions...)
}

func (p *person) set(action string) {
	p.mu.Lock()
	p.action = action
	p.mu.Unlock()
}

var item = map[string]any{"project": "alpha", "title": "Write docs", "priority": 2}

// TestApproveAnyTool: a plain write and a composed delete run only after
// the person accepts, with exactly the approved arguments; a decline sends
// nothing (a composed tool's first reads excepted) and says so.
func TestApproveAnyTool(t *testing.T) {
	for _, sv := range workspace.servers() {
		for _, tr := range approvalTransports {
			t.Run(sv.kind+"/"+tr, func(t *testing.T) {
				b := wsBackend(t)
				p := &person{action: "accept"}
				srv := startWorkspace(t, sv, tr, b, wsTenant, p.options())

				res := srv.Call(t, "create_item", item)
				eq(t, "accepted: isError", res.IsError, false)
				eq(t, "question", strings.Join(p.asked(), "|"), `Create item "Write docs" (priority 2) in project alpha?`)
				w := wsWrites(b)
				eq(t, "writes", len(w), 1)
				eq(t, "method", w[0].Method, "POST")
				eq(t, "path", w[0].RawPath, "/projects/alpha/items")
				eq(t, "tenant", w[0].Header.Get("X-Tenant"), wsTenant)
				var body map[string]any
				json.Unmarshal([]byte(w[0].Body), &body)
				eq(t, "body", len(body), 2)
				eq(t, "title", body["title"], any("Write docs"))
				eq(t, "priority", body["priority"], any(2.0))

				p.set("decline")
				res = srv.Call(t, "create_item", item)
				eq(t, "declined: isError", res.IsError, true)
				contains(t, testkit.Text(res), "The user declined", `Create item \"Write docs\"`, "Nothing was done")
				eq(t, "writes after a decline", len(wsWrites(b)), 0)

				p.set("cancel")
				res = srv.Call(t, "create_item", item)
				contains(t, testkit.Text(res), "dismissed", "Nothing was done")
				eq(t, "writes after a dismissal", len(wsWrites(b)), 0)

				// A composed tool reads first, and the question shows it.
				p.set("accept")
				res = srv.Call(t, "remove_project", map[string]any{"project": "beta"})
				eq(t, "remove: isError", res.IsError, false)
				qs := p.asked()
				eq(t, "remove question", qs[len(qs)-1], "Delete project beta and its 41 items?")
				var methods []string
				for _, r := range b.Take() {
					methods = append(methods, r.Method+" "+r.RawPath)
				}
				eq(t, "remove requests", strings.Join(methods, ", "), "GET /projects/beta, GET /projects/beta, DELETE /projects/beta")
				p.set("decline")
				srv.Call(t, "remove_project", map[string]any{"project": "gamma"})
				eq(t, "remove declined: writes", len(wsWrites(b)), 0)

				recs := audits(t, srv, "create_item", 6)
				var got []string
				for _, r := range recs {
					got = append(got, r.Approval)
				}
				eq(t, "audit: approvals", strings.Join(got, ","), "asked,accept,asked,decline,asked,cancel")
				raw := auditLines(t, srv, "create_item", 6)
				for _, l := range raw {
					contains(t, l, `"args_sha256":"`, `"request_id":"`)
				}
			})
		}
	}
}

// answerCall calls tool with args, an answer and a request state, as a
// client that handles input requests itself.
func answerCall(t *testing.T, srv *testkit.Server, tool string, args map[string]any, state, action string) *mcp.CallToolResult {
	return callParams(t, srv, &mcp.CallToolParams{Name: tool, Arguments: args, RequestState: state,
		InputResponses: mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: action}}})
}

func askState(t *testing.T, srv *testkit.Server, tool string, args map[string]any) string {
	t.Helper()
	res := callParams(t, srv, &mcp.CallToolParams{Name: tool, Arguments: args})
	if !res.NeedsInput() || res.InputRequests["approval"] == nil || res.RequestState == "" {
		t.Fatalf("want an approval request, got: %s (isError %v)", testkit.Text(res), res.IsError)
	}
	return res.RequestState
}

func needsInput(t *testing.T, what string, res *mcp.CallToolResult) {
	t.Helper()
	if !res.NeedsInput() {
		t.Fatalf("%s: want a new approval request, got: %s (isError %v)", what, testkit.Text(res), res.IsError)
	}
}

// TestApproveBoundToCall: an approval counts for the call it was asked
// for, once: a changed argument, a replayed answer, an answer from another
// session or caller, and a client that cannot ask under refuse all send
// nothing. (Over stateful HTTP go-sdk asks on the session itself: the
// request state never reaches the client, see TestApproveAnyTool.)
func TestApproveBoundToCall(t *testing.T) {
	for _, sv := range workspace.servers() {
		for _, tr := range []string{"stdio", "stateless"} {
			t.Run(sv.kind+"/"+tr, func(t *testing.T) {
				b := wsBackend(t)
				srv := startWorkspace(t, sv, tr, b, wsTenant, manual())

				s := askState(t, srv, "create_item", item)
				changed := map[string]any{"project": "alpha", "title": "Write docs", "priority": 5}
				needsInput(t, "a changed argument", answerCall(t, srv, "create_item", changed, s, "accept"))
				other := map[string]any{"project": "omega", "title": "Write docs", "priority": 2}
				needsInput(t, "another project", answerCall(t, srv, "create_item", other, s, "accept"))
				eq(t, "writes with changed arguments", len(wsWrites(b)), 0)

				res := answerCall(t, srv, "create_item", item, s, "accept")
				eq(t, "approved: isError", res.IsError, false)
				w := wsWrites(b)
				eq(t, "writes", len(w), 1)
				contains(t, w[0].Body, `"priority":2`, `"title":"Write docs"`)
				needsInput(t, "a replayed approval", answerCall(t, srv, "create_item", item, s, "accept"))
				eq(t, "writes after a replay", len(wsWrites(b)), 0)

				// The state of one tool is no answer for another.
				s2 := askState(t, srv, "update_item", map[string]any{"project": "alpha", "item": "it_1", "priority": 3})
				needsInput(t, "another tool", answerCall(t, srv, "create_item", item, s2, "accept"))
				eq(t, "writes with another tool's state", len(wsWrites(b)), 0)

				// Another session (stdio: another process) or caller
				// (stateless: another tenant).
				s3 := askState(t, srv, "create_item", item)
				var elsewhere *testkit.Server
				switch tr {
				case "stdio":
					elsewhere = startWorkspace(t, sv, tr, b, wsTenant, manual())
				case "stateless":
					elsewhere = srv.Connect(t, &http.Client{Transport: headerRoundTripper{"X-Tenant": "tenant-other"}}, manual())
				}
				needsInput(t, "another session or caller", answerCall(t, elsewhere, "create_item", item, s3, "accept"))
				eq(t, "writes from elsewhere", len(wsWrites(b)), 0)
				// The state still counts where it was asked.
				res = answerCall(t, srv, "create_item", item, s3, "accept")
				eq(t, "approved after the foreign attempt", res.IsError, false)
				eq(t, "writes", len(wsWrites(b)), 1)

				// A decline uses the approval up too.
				s4 := askState(t, srv, "create_item", item)
				contains(t, testkit.Text(answerCall(t, srv, "create_item", item, s4, "decline")), "The user declined", "Nothing was done")
				needsInput(t, "accept after decline", answerCall(t, srv, "create_item", item, s4, "accept"))
				eq(t, "writes after a decline", len(wsWrites(b)), 0)

				// A client that cannot ask: refused (create_item), or run as
				// the overlay allows (update_item).
				mute := startWorkspace(t, sv, tr, b, wsTenant, nil)
				res = mute.Call(t, "create_item", item)
				eq(t, "mute: isError", res.IsError, true)
				contains(t, testkit.Text(res), "needs the user's explicit approval", "this client cannot ask for it", "nothing was done")
				eq(t, "mute writes", len(wsWrites(b)), 0)
				res = mute.Call(t, "update_item", map[string]any{"project": "alpha", "item": "it_1", "priority": 3})
				eq(t, "proceed: isError", res.IsError, false)
				eq(t, "proceed writes", len(wsWrites(b)), 1)
			})
		}
	}
}

// TestApproveConcurrent: 50 concurrent calls ask at most once each and
// never run twice.
func TestApproveConcurrent(t *testing.T) {
	for _, sv := range workspace.servers() {
		for _, tr := range []string{"stdio", "http"} {
			t.Run(sv.kind+"/"+tr, func(t *testing.T) {
				b := wsBackend(t)
				var asked atomic.Int32
				opts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					return &mcp.ElicitResult{Action: "accept"}, nil
				}}
				srv := startWorkspace(t, sv, tr, b, wsTenant, opts)
				const n = 50
				var wg sync.WaitGroup
				results := make([]*mcp.CallToolResult, n)
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						results[i] = srv.Call(t, "create_item", map[string]any{"project": "alpha", "title": "Item " + string(rune('A'+i%26)) + string(rune('a'+i/26)), "priority": 1})
					}()
				}
				wg.Wait()
				for i, res := range results {
					if res.IsError {
						t.Fatalf("call %d: %s", i, testkit.Text(res))
					}
				}
				eq(t, "questions", int(asked.Load()), n)
				w := wsWrites(b)
				eq(t, "writes", len(w), n)
				seen := map[string]bool{}
				for _, r := range w {
					if seen[r.Body] {
						t.Fatalf("a call ran twice: %s", r.Body)
					}
					seen[r.Body] = true
				}
			})
		}
	}
}

// TestApproveUnanswered: over stateful HTTP go-sdk asks the person on the
// session itself; when that request fails (the client's dialog errs),
// nothing is sent, and the audit still has a line for the approval: the
// tool, the hash of the arguments and a fingerprint of the caller, never
// the arguments' values or the caller's tenant.
func TestApproveUnanswered(t *testing.T) {
	for _, sv := range workspace.servers() {
		t.Run(sv.kind, func(t *testing.T) {
			b := wsBackend(t)
			opts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return nil, fmt.Errorf("the approval dialog crashed")
			}}
			srv := startWorkspace(t, sv, "http", b, wsTenant, opts)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := srv.Session.CallTool(ctx, &mcp.CallToolParams{Name: "create_item", Arguments: item}); err == nil {
				t.Fatal("the failed approval round trip did not fail the call")
			}
			eq(t, "writes", len(wsWrites(b)), 0)
			lines := auditLines(t, srv, "create_item", 1, "got no answer")
			var got []string
			for _, l := range lines {
				var r struct {
					Approval, Outcome string
					Hash              string `json:"args_sha256"`
					Caller            string `json:"caller"`
				}
				json.Unmarshal([]byte(l), &r)
				got = append(got, r.Approval)
				if len(r.Hash) != 64 || r.Caller == "" || r.Outcome != "error" {
					t.Fatalf("audit line without the hash or the caller: %s", l)
				}
				if strings.Contains(l, wsTenant) || strings.Contains(l, "Write docs") || strings.Contains(l, wsToken) {
					t.Fatalf("the audit line shows an argument or the tenant: %s", l)
				}
			}
			eq(t, "unanswered approvals", strings.Join(got, ","), "failed")
		})
	}
}

// TestApprovePolicy: --approve destructive asks before every tool that
// deletes and the overlay says nothing about, and before no read; the
// question names the tool and its arguments, never the token or the
// caller's tenant; `approval: false` exempts a tool.
func TestApprovePolicy(t *testing.T) {
	for _, sv := range workspace.servers() {
		for _, tr := range []string{"stdio", "stateless"} {
			t.Run(sv.kind+"/"+tr, func(t *testing.T) {
				b := wsBackend(t)
				p := &person{action: "accept"}
				srv := startWorkspace(t, sv, tr, b, wsTenant, p.options(), "--approve", "destructive")

				srv.Call(t, "get_project", map[string]any{"project": "alpha"})
				srv.Call(t, "list_items", map[string]any{"project": "alpha", "X-Tenant": wsTenant})
				eq(t, "questions for reads", len(p.asked()), 0)
				res := srv.Call(t, "delete_item", map[string]any{"project": "alpha", "item": "it_9"})
				eq(t, "delete_item: isError", res.IsError, false)
				qs := p.asked()
				eq(t, "questions", len(qs), 1)
				contains(t, qs[0], "delete_item", "Delete an item", "deletes or overwrites", `item="it_9"`, `project="alpha"`)
				// The raw tool takes the tenant as an argument: never shown.
				p.set("decline")
				res = srv.Call(t, "delete_project", map[string]any{"project": "alpha", "X-Tenant": wsTenant})
				contains(t, testkit.Text(res), "The user declined", "Nothing was done")
				qs = p.asked()
				eq(t, "questions", len(qs), 2)
				contains(t, qs[1], "delete_project", `project="alpha"`, "X-Tenant=(not shown)")
				for _, q := range qs {
					if strings.Contains(q, wsTenant) || strings.Contains(q, wsToken) {
						t.Fatalf("the question shows a secret or the tenant: %s", q)
					}
				}
				srv.Call(t, "purge_items", map[string]any{"project": "alpha"})
				eq(t, "purge (approval: false) asked", len(p.asked()), 2)
				var sent []string
				for _, r := range wsWrites(b) {
					sent = append(sent, r.Method+" "+r.RawPath)
				}
				eq(t, "writes", strings.Join(sent, ", "), "DELETE /projects/alpha/items/it_9, DELETE /projects/alpha/items")
			})
		}
	}
}

// TestApprovePolicyStripe: --approve destructive on stripe's raw tool set
// (tailor serve) asks before every tool that sends a DELETE, and before
// no other; every DELETE the backend receives was approved first, and no
// question shows the API key.
func TestApprovePolicyStripe(t *testing.T) {
	dir := testkit.CorpusDir()
	if dir == "" {
		t.Skip("corpus not found beside the repository (../shared/corpus)")
	}
	const key = "sk_test_5b1e77c2d9f0"
	b := testkit.NewBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"x_1","object":"thing","deleted":true}`))
	})
	p := &person{action: "accept"}
	srv := testkit.StartStdioClient(t, tailorBinary(t), []string{"STRIPE_BEARER_AUTH_TOKEN=" + key}, p.options(),
		"serve", "--spec", filepath.Join(dir, "stripe.yaml"), "--name", "stripe", "--", "--approve", "destructive", "--base-url", b.URL)
	tools := corpusListTools(t, srv)
	deletes, others := 0, 0
	for _, tool := range tools {
		args := requiredArgs(tool.InputSchema)
		before := len(p.asked())
		res := srv.Call(t, tool.Name, args)
		asked := len(p.asked()) - before
		sent := b.Take()
		isDelete := len(sent) == 1 && sent[0].Method == http.MethodDelete
		destructive := tool.Annotations != nil && tool.Annotations.DestructiveHint != nil && *tool.Annotations.DestructiveHint
		switch {
		case destructive:
			deletes++
			if asked != 1 || !isDelete {
				t.Fatalf("%s: asked %d times, sent %v: %s", tool.Name, asked, sent, testkit.Text(res))
			}
			q := p.asked()[before]
			if !strings.Contains(q, tool.Name) || strings.Contains(q, key) {
				t.Fatalf("%s: question %q", tool.Name, q)
			}
		default:
			others++
			if asked != 0 {
				t.Fatalf("%s (not destructive) asked: %v", tool.Name, p.asked()[before:])
			}
			for _, r := range sent {
				if r.Method == http.MethodDelete {
					t.Fatalf("%s sent a DELETE without approval", tool.Name)
				}
			}
		}
	}
	t.Logf("%d tools: %d deletes asked and approved, %d others not asked", len(tools), deletes, others)
	if deletes < 10 || others < 100 {
		t.Fatalf("too few tools exercised: %d deletes, %d others", deletes, others)
	}
}

// requiredArgs fills a tool's required arguments with plain values of
// their type (the first of an enum).
func requiredArgs(schema any) map[string]any {
	raw, _ := json.Marshal(schema)
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	json.Unmarshal(raw, &s)
	args := map[string]any{}
	for _, name := range s.Required {
		prop := s.Properties[name]
		if nullable(prop) {
			// The strict form lists an optional argument as required
			// and nullable: null is "not given".
			args[name] = nil
			continue
		}
		if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 {
			args[name] = enum[0]
			continue
		}
		switch prop["type"] {
		case "integer", "number":
			args[name] = 1
		case "boolean":
			args[name] = true
		case "array":
			args[name] = []any{}
		case "object":
			args[name] = map[string]any{}
		default:
			args[name] = "x_1"
		}
	}
	return args
}
