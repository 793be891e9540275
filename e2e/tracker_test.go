package e2e

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/examples/tracker/backend"
	"github.com/tailormcp/tailor/internal/testkit"
)

// The tracker example (issue 32): an API without preview endpoints, where
// every write is approved by the person and deleting a repository goes
// through a quote the server holds. Replayed on the committed generated
// server and on tailor serve, over stdio and HTTP with and without
// sessions, asserting on what the backend received.

var trkServer = &exampleServer{name: "tracker"}

func trackerBinary(t *testing.T) string { return trkServer.binary(t) }

func trackerServers() []server {
	dir := filepath.Join(testkit.RepoRoot(), "examples", "tracker")
	spec, overlay := filepath.Join(dir, "openapi.yaml"), filepath.Join(dir, "overlay.yaml")
	return []server{
		{kind: "generated", spec: spec, overlay: overlay, name: "tracker", bin: trackerBinary},
		{kind: "serve", spec: spec, overlay: overlay, name: "tracker"},
	}
}

func startTracker(t *testing.T, sv server, tr string, api *backend.Tracker, p *person) *testkit.Server {
	t.Helper()
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(srv.Close)
	bin, pre := sv.command(t)
	env := []string{"TRACKER_BASE_URL=" + srv.URL, "TRACKER_TOKEN=" + backend.Token}
	args := pre
	if tr == "stdio" {
		return testkit.StartStdioClient(t, bin, env, p.options(), args...)
	}
	if tr == "stateless" {
		args = append(args, "--stateless")
	}
	return testkit.StartHTTPOptions(t, bin, env, http.DefaultClient, p.options(), args...)
}

func writesOf(api *backend.Tracker) string {
	var out []string
	for _, w := range api.Writes() {
		out = append(out, strings.TrimSpace(w.Method+" "+w.Path+" "+w.Body))
	}
	return strings.Join(out, " | ")
}

func TestTrackerStory(t *testing.T) {
	for _, sv := range trackerServers() {
		for _, tr := range approvalTransports {
			t.Run(sv.kind+"/"+tr, func(t *testing.T) {
				api := backend.New()
				p := &person{action: "accept"}
				srv := startTracker(t, sv, tr, api, p)

				res := srv.Call(t, "get_repository", map[string]any{"owner": "acme", "repo": "site"})
				contains(t, testkit.Text(res), "acme/site: 41 open issues, 12 stars.")

				// A plain write, approved with its arguments.
				res = srv.Call(t, "create_issue", map[string]any{"owner": "acme", "repo": "tools", "title": "Pin the linter"})
				contains(t, testkit.Text(res), "Opened issue #2: Pin the linter.")
				// A composed write: the question shows what the read found.
				res = srv.Call(t, "close_issue", map[string]any{"owner": "acme", "repo": "site", "number": 7, "reason": "completed"})
				contains(t, testkit.Text(res), "Closed issue #7 (completed).")
				eq(t, "questions", strings.Join(p.asked(), " | "),
					`Open an issue titled "Pin the linter" in acme/tools (open issues now: 1)? | Close issue #7 "Broken link on the pricing page" in acme/site as completed?`)
				eq(t, "writes", writesOf(api), `POST /repos/acme/tools/issues {"title":"Pin the linter"} | PATCH /repos/acme/site/issues/7 {"state":"closed","state_reason":"completed"}`)

				// A quote the server computes: nothing is sent.
				before := len(api.Writes())
				res = srv.Call(t, "quote_delete_repository", map[string]any{"owner": "acme", "repo": "site"})
				contains(t, testkit.Text(res), "Deleting acme/site (40 open issues, 12 stars) is prepared as quote q_", "Nothing has been done yet", "call delete_repository with quote_id")
				q := quoteID(t, res)
				eq(t, "writes after the quote", len(api.Writes()), before)
				// A decline does nothing; the quote stays valid.
				p.set("decline")
				res = srv.Call(t, "delete_repository", map[string]any{"quote_id": q})
				contains(t, testkit.Text(res), "The user declined", "Nothing was done")
				eq(t, "writes after a decline", len(api.Writes()), before)
				if api.Repo("acme/site") == nil {
					t.Fatal("declined, yet deleted")
				}
				// Approved: exactly the quoted arguments, once.
				p.set("accept")
				res = srv.Call(t, "delete_repository", map[string]any{"quote_id": q})
				eq(t, "delete: isError", res.IsError, false)
				contains(t, testkit.Text(res), "Deleted the repository acme/site.")
				qs := p.asked()
				eq(t, "delete question", qs[len(qs)-1], "Delete the repository acme/site and its 40 open issues? This cannot be undone.")
				eq(t, "writes after the delete", writesOf(api)[len(writesOf(api))-len("DELETE /repos/acme/site"):], "DELETE /repos/acme/site")
				eq(t, "writes", len(api.Writes()), before+1)
				if api.Repo("acme/site") != nil {
					t.Fatal("approved, yet not deleted")
				}
				// A second confirm says it was already carried out.
				res = srv.Call(t, "delete_repository", map[string]any{"quote_id": q})
				contains(t, testkit.Text(res), "Quote "+q+" was already carried out", "Nothing more was done")
				eq(t, "writes after a second confirm", len(api.Writes()), before+1)
				// A quote holds arguments checked against the write's schema.
				res = srv.Call(t, "quote_delete_repository", map[string]any{"owner": "acme"})
				eq(t, "incomplete quote: isError", res.IsError, true)
				eq(t, "writes after a bad quote", len(api.Writes()), before+1)
			})
		}
	}
}

// TestTrackerScenarios: the example's scenarios pass with tailor test on
// the generated server and on tailor serve, and the API holds what they
// did: issue 7 closed, acme/site deleted, no issue opened.
func TestTrackerScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example server")
	}
	example := filepath.Join(testkit.RepoRoot(), "examples", "tracker", "scenarios.yaml")
	for _, sv := range trackerServers() {
		t.Run(sv.kind, func(t *testing.T) {
			api := backend.New()
			srv := httptest.NewServer(api.Handler())
			t.Cleanup(srv.Close)
			code, out := tailorTest(t, sv, example, srv.URL)
			if code != 0 || !strings.Contains(out, "scenarios passed    3\n") {
				t.Fatalf("exit %d\n%s", code, out)
			}
			eq(t, "writes", writesOf(api), `PATCH /repos/acme/site/issues/7 {"state":"closed","state_reason":"completed"} | DELETE /repos/acme/site`)
		})
	}
}
