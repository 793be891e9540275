package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tailormcp/tailor/internal/testkit"
)

// The tests in this file drive servers generated from the small specs of
// testdata/cases/<defect class>/ (one folder per class of problem real
// specs have; the golden files show the code and the warnings) against a
// loopback backend, generated and served.

var goldenBins sync.Map // case name → *goldenBin

type goldenBin struct {
	once sync.Once
	bin  string
}

// goldenServers are the raw tool set of testdata/cases/<name>/openapi.yaml,
// generated (built once per test binary) and served; pkg is the server's
// name and environment prefix.
func goldenServers(name, pkg string) []server {
	spec := filepath.Join(testkit.RepoRoot(), "testdata", "cases", name, "openapi.yaml")
	bin := func(t *testing.T) string {
		v, _ := goldenBins.LoadOrStore(name, &goldenBin{})
		gb := v.(*goldenBin)
		gb.once.Do(func() {
			m := testkit.NewModule(persistent{t})
			m.Generate(t, spec, pkg)
			gb.bin = m.Compile(t, pkg)[pkg]
		})
		if gb.bin == "" {
			t.Fatalf("building the %s server failed in an earlier test", name)
		}
		return gb.bin
	}
	return []server{
		{kind: "generated", spec: spec, name: pkg, bin: bin},
		{kind: "serve", spec: spec, name: pkg},
	}
}

// stdioExact starts the server with exactly env as its environment.
func (s server) stdioExact(t *testing.T, env []string) *testkit.Server {
	bin, pre := s.command(t)
	return testkit.StartStdioEnv(t, bin, env, pre...)
}

// TestResultsClientsAccept: whatever shape a backend returns, the result
// is one every client accepts: structuredContent validates against the
// outputSchema the tool declared (checked here with go-sdk's validator,
// and by the Inspector's own client in TestInspectorAcceptsDriftedShapes),
// and the model reads the whole response as text.
func TestResultsClientsAccept(t *testing.T) {
	for _, sv := range goldenServers("output-schemas", "shapes") {
		t.Run(sv.kind, func(t *testing.T) {
			backend := testkit.NewBackend(t, nil)
			srv := sv.stdio(t, []string{"SHAPES_BASE_URL=" + backend.URL})
			outputs := listedOutputSchemas(t, srv)
			for _, c := range driftedShapes {
				t.Run(c.name, func(t *testing.T) {
					backend.Handle(c.reply())
					const misfit = "does not match the tool's output schema"
					before := strings.Count(srv.Stderr(), misfit)
					res := srv.Call(t, c.tool, c.args)
					if c.refused != "" {
						if text := testkit.Text(res); !res.IsError || !strings.Contains(text, c.refused) || !strings.Contains(text, c.inText) {
							t.Errorf("isError=%v %q; want an error saying %q and showing %q", res.IsError, text, c.refused, c.inText)
						}
						return
					}
					if res.IsError {
						t.Fatalf("isError for a successful response: %s", testkit.Text(res))
					}
					if res.StructuredContent == nil {
						t.Fatalf("no structuredContent, though the tool declares an outputSchema")
					}
					if err := validateWithGoSDK(outputs[c.tool], res.StructuredContent); err != nil {
						t.Errorf("structuredContent %s does not validate against the declared outputSchema: %v", testkit.Structured(res), err)
					}
					if !strings.Contains(testkit.Text(res), c.inText) {
						t.Errorf("the text lacks %q (the model must read the whole response):\n%s", c.inText, testkit.Text(res))
					}
					if c.want != "" && testkit.Structured(res) != c.want {
						t.Errorf("structuredContent = %s, want %s", testkit.Structured(res), c.want)
					}
					// stderr arrives on its own pipe: wait for it.
					logged := false
					for wait := 0; wait < 40 && !logged; wait++ {
						time.Sleep(25 * time.Millisecond)
						logged = strings.Count(srv.Stderr(), misfit) > before
						if !c.drifted && wait == 3 {
							break
						}
					}
					if logged != c.drifted {
						t.Errorf("logged that the response did not fit: %v, want %v\n%s", logged, c.drifted, srv.Stderr())
					}
				})
			}
		})
	}
}

// driftedShape is a response a backend gives in place of what its spec
// describes.
type driftedShape struct {
	name, tool string
	args       map[string]any
	ctype      string
	body       string
	// inText is part of the body the model must still read; want, when
	// set, is the structuredContent expected.
	inText, want string
	// drifted responses do not fit the declared schema, and the log says so.
	drifted bool
	// refused, when set, is what the isError result says instead: a 2xx
	// that is not the JSON the description promises is not a success (an
	// error result, which clients do not check against the outputSchema).
	refused string
}

func (d driftedShape) reply() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", d.ctype)
		io.WriteString(w, d.body)
	}
}

const fullOrder = `{"id":"o_1","status":"open","total":12.5,"placed_at":"2026-01-02T03:04:05Z","items":[{"sku":"A1","quantity":2}],"payment":{"card":"4242"}}`

var driftedShapes = []driftedShape{
	{name: "as specified", tool: "get_order", args: map[string]any{"id": "o_1"}, ctype: "application/json", body: fullOrder, inText: `"sku":"A1"`},
	{name: "extra field", tool: "get_order", args: map[string]any{"id": "o_1"}, ctype: "application/json",
		body: `{"id":"o_1","status":"open","total":1,"items":[],"loyalty":{"points":7}}`, inText: `"points":7`, want: `{"id":"o_1","items":[],"loyalty":{"points":7},"status":"open","total":1}`},
	{name: "required fields missing", tool: "get_order", args: map[string]any{"id": "o_1"}, ctype: "application/json", body: `{"id":"o_1"}`, inText: `"o_1"`, want: `{"id":"o_1"}`},
	{name: "null where the spec says string", tool: "get_order", args: map[string]any{"id": "o_1"}, ctype: "application/json", body: `{"id":"o_1","status":null,"placed_at":null}`, inText: `"status":null`},
	{name: "a value the enum lacks, a date in another format", tool: "get_order", args: map[string]any{"id": "o_1"}, ctype: "application/json",
		body: `{"id":"o_1","status":"returned","placed_at":"yesterday"}`, inText: `"returned"`},
	{name: "both payment branches match", tool: "get_order", args: map[string]any{"id": "o_1"}, ctype: "application/json", body: `{"payment":{}}`, inText: `"payment"`},
	{name: "string for number", tool: "get_order", args: map[string]any{"id": "o_1"}, ctype: "application/json",
		body: `{"id":"o_1","total":"12.50"}`, inText: `"12.50"`, want: `{"id":"o_1"}`, drifted: true},
	{name: "object for array", tool: "list_orders", ctype: "application/json",
		body: `{"orders":[{"id":"o_1"}],"next":null}`, inText: `"orders"`, want: `{}`, drifted: true},
	{name: "object for array, inside", tool: "get_order", args: map[string]any{"id": "o_1"}, ctype: "application/json",
		body: `{"id":"o_1","items":{"sku":"A1"}}`, inText: `"sku":"A1"`, want: `{"id":"o_1"}`, drifted: true},
	{name: "array element of the wrong type", tool: "list_orders", ctype: "application/json",
		body: `[{"id":"o_1"},"o_2",{"id":"o_3"}]`, inText: `"o_2"`, want: `{"items":[{"id":"o_1"},null,{"id":"o_3"}]}`, drifted: true},
	{name: "string for integer", tool: "count_orders", ctype: "application/json", body: `"12"`, inText: `"12"`, want: `{}`, drifted: true},
	{name: "not JSON", tool: "get_order", args: map[string]any{"id": "o_1"}, ctype: "text/plain", body: "order o_1 is open", inText: "order o_1 is open",
		refused: "where the API's description promises JSON"},
	{name: "empty", tool: "list_orders", ctype: "application/json", body: "", inText: "no content", want: `{}`},
}

// listedOutputSchemas returns each tool's outputSchema as tools/list gives it.
func listedOutputSchemas(t *testing.T, srv *testkit.Server) map[string]json.RawMessage {
	t.Helper()
	res, err := srv.Session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	for _, tl := range res.Tools {
		if tl.OutputSchema != nil {
			b, _ := json.Marshal(tl.OutputSchema)
			out[tl.Name] = b
		}
	}
	return out
}

// validateWithGoSDK checks a value against a schema with
// github.com/google/jsonschema-go, the validator go-sdk uses.
func validateWithGoSDK(schema json.RawMessage, v any) error {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return err
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return err
	}
	// The value as a client decodes it from the wire.
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var wire any
	if err := json.Unmarshal(b, &wire); err != nil {
		return err
	}
	return rs.Validate(wire)
}

// TestStartsWithoutConfiguration: a spec with no servers gives a server
// that starts with no environment at all and lists its tools; a call is
// refused before anything is sent, naming the setting and how to set it
// (the base URL, then the credential); stderr warns at start.
func TestStartsWithoutConfiguration(t *testing.T) {
	for _, sv := range goldenServers("no-servers", "noservers") {
		t.Run(sv.kind, func(t *testing.T) {
			backend := testkit.NewBackend(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `[{"id":"n1"}]`)
			})

			srv := sv.stdioExact(t, nil)
			res, err := srv.Session.ListTools(context.Background(), nil)
			if err != nil || len(res.Tools) != 1 {
				t.Fatalf("tools/list without configuration: %v %+v\n%s", err, res, srv.Stderr())
			}
			call := srv.Call(t, "list_notes", nil)
			text := testkit.Text(call)
			eq(t, "isError", call.IsError, true)
			contains(t, text, "--base-url", "NOSERVERS_BASE_URL", "nothing was sent", "retrying will not help")
			warnings := []string{"no backend base URL", "NOSERVERS_BASE_URL", "no credentials", "NOSERVERS_KEY"}
			srv.WaitStderr(t, "the start warnings "+strings.Join(warnings, ", "), func(stderr string) bool {
				for _, w := range warnings {
					if !strings.Contains(stderr, w) {
						return false
					}
				}
				return true
			})

			// With the base URL but no credential: refused, naming it.
			srv = sv.stdioExact(t, []string{"NOSERVERS_BASE_URL=" + backend.URL})
			call = srv.Call(t, "list_notes", nil)
			eq(t, "isError", call.IsError, true)
			contains(t, testkit.Text(call), "NOSERVERS_KEY", "X-Key", "nothing was sent")
			if got := backend.Take(); len(got) != 0 {
				t.Errorf("the backend received %d requests from calls that lacked configuration", len(got))
			}

			srv = sv.stdioExact(t, []string{"NOSERVERS_BASE_URL=" + backend.URL, "NOSERVERS_KEY=k3y-value"})
			call = srv.Call(t, "list_notes", nil)
			eq(t, "isError", call.IsError, false)
			eq(t, "structured", testkit.Structured(call), `{"items":[{"id":"n1"}]}`)
			eq(t, "key sent", backend.Last(t).Header.Get("X-Key"), "k3y-value")
		})
	}
}

// TestSpecSettledParameters: what the spec settles is sent, and never
// asked from the model: a parameter carrying a scheme's secret comes from
// the credential (once, where the parameter says), a required parameter
// with one allowed value (a versioned Accept header among them) is sent
// with it.
func TestSpecSettledParameters(t *testing.T) {
	const key, bearer = "q-k3y-value", "b3arer-value"
	for _, sv := range goldenServers("spec-settled-params", "settled") {
		t.Run(sv.kind, func(t *testing.T) {
			backend := testkit.NewBackend(t, nil)
			srv := sv.stdio(t, []string{"SETTLED_BASE_URL=" + backend.URL, "SETTLED_QUERY_TOKEN=" + key, "SETTLED_BEARER_TOKEN=" + bearer})
			query := func(r testkit.Received) url.Values { v, _ := url.ParseQuery(r.Query); return v }

			t.Run("the scheme sends its own key", func(t *testing.T) {
				res := srv.Call(t, "search", map[string]any{"q": "hi"})
				eq(t, "isError", res.IsError, false)
				eq(t, "query", strings.Join(query(backend.Last(t))["token"], ","), key)
				res = srv.Call(t, "search", map[string]any{"q": "hi", "token": "forged"})
				eq(t, "a token argument is refused", res.IsError, true)
				contains(t, testkit.Text(res), "token")
			})
			t.Run("a form field carries the query key's secret", func(t *testing.T) {
				srv.Call(t, "post_message", map[string]any{"text": "hello"})
				got := backend.Last(t)
				form, _ := url.ParseQuery(got.Body)
				eq(t, "form token", form.Get("token"), key)
				eq(t, "form text", form.Get("text"), "hello")
				eq(t, "not also in the query", got.Query, "")
			})
			t.Run("a token parameter carries the bearer token", func(t *testing.T) {
				srv.Call(t, "get_chat", map[string]any{"channel": "c1"})
				got := backend.Last(t)
				eq(t, "token", query(got).Get("token"), bearer)
				eq(t, "no Authorization header as well", got.Header.Get("Authorization"), "")
			})
			t.Run("a token that is data stays the model's", func(t *testing.T) {
				srv.Call(t, "list_sessions", map[string]any{"token": "s_9"})
				got := backend.Last(t)
				eq(t, "token", query(got).Get("token"), "s_9")
				eq(t, "Authorization", got.Header.Get("Authorization"), "Bearer "+bearer)
			})
			t.Run("one allowed value is sent", func(t *testing.T) {
				srv.Call(t, "get_thing", nil)
				got := backend.Last(t)
				eq(t, "path", got.RawPath, "/things/widget")
				eq(t, "Accept", got.Header.Get("Accept"), "application/vnd.things.v3+json")
				eq(t, "version", got.Header.Get("X-Api-Version"), "2024-01-01")
				eq(t, "optional single value not sent", got.Query, "")
			})
			// Everything logged is in once the last call's audit record is.
			auditLines(t, srv, "get_thing", 1)
			for _, secret := range []string{key, bearer} {
				if strings.Contains(srv.Stderr(), secret) {
					t.Errorf("a credential reached the log")
				}
			}
		})
	}
}

// TestPathRepairs: a placeholder the spec declares in the wrong place or
// not at all is an argument sent in the path; a path parameter the
// template lacks is not asked for.
func TestPathRepairs(t *testing.T) {
	for _, sv := range goldenServers("path-placeholders", "jobs") {
		t.Run(sv.kind, func(t *testing.T) {
			backend := testkit.NewBackend(t, nil)
			srv := sv.stdio(t, []string{"JOBS_BASE_URL=" + backend.URL})
			srv.Call(t, "get_export", map[string]any{"job_identifier": "j/1"})
			got := backend.Last(t)
			eq(t, "path", got.RawPath, "/export/j%2F1")
			eq(t, "query", got.Query, "")
			srv.Call(t, "get_file_content", map[string]any{"file_id": "f1"})
			eq(t, "path", backend.Last(t).RawPath, "/files/f1/content")
			res := srv.Call(t, "get_index", nil)
			eq(t, "isError", res.IsError, false)
			eq(t, "path", backend.Last(t).RawPath, "/")
		})
	}
}
