package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/schema"
	"github.com/tailormcp/tailor/internal/testkit"
)

// TestStrictFormCalls generates a server from a spec whose schemas strict
// mode refuses as they are (testdata/e2e/strict), lists its tools (each
// listed schema keeps OpenAI's strict rules) and calls them as a client in
// strict mode does: every property present, null for what the model leaves
// out, maps as {key, value} pairs, free-form objects as JSON text. The
// backend must receive the request the full schema describes; and a call
// in the full form still works.
func TestStrictFormCalls(t *testing.T) {
	m := testkit.NewModule(t)
	m.Generate(t, filepath.Join(testkit.RepoRoot(), "testdata", "e2e", "strict", "openapi.yaml"), "strictsrv")
	bin := m.Compile(t, "strictsrv")["strictsrv"]
	backend := testkit.NewBackend(t, jsonReply(200, `{"id":"w1"}`))
	srv := testkit.StartStdio(t, bin, []string{"STRICTSRV_BASE_URL=" + backend.URL + "/api"})

	res, err := srv.Session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		if p := schema.CheckStrict(b); len(p) > 0 {
			t.Errorf("%s lists a schema strict mode refuses: %v", tl.Name, p)
		}
	}

	must := func(s string) map[string]any {
		var args map[string]any
		if err := json.Unmarshal([]byte(s), &args); err != nil {
			t.Fatal(err)
		}
		return args
	}
	r := srv.Call(t, "put_widget", must(`{"id":"w1","verbose":null,
		"body":{"name":"ab","labels":[{"key":"env","value":"prod"},{"key":"team","value":"core"}],"extra":"{\"x\":1,\"y\":[true]}"}}`))
	if r.IsError {
		t.Fatalf("strict-form call refused: %s", testkit.Text(r))
	}
	got := backend.Last(t)
	eq(t, "method and path", got.Method+" "+got.RawPath+"?"+got.Query, "PUT /api/widgets/w1?")
	eq(t, "body", canonJSON(t, got.Body), `{"extra":{"x":1,"y":[true]},"labels":{"env":"prod","team":"core"},"name":"ab"}`)

	r = srv.Call(t, "reshape_widget", must(`{"id":"w1","limit":null,"tags":["a","b"],"size":"small","window":{"from":1,"to":null},"anything":null,"homepage":null}`))
	if r.IsError {
		t.Fatalf("strict-form call refused: %s", testkit.Text(r))
	}
	got = backend.Last(t)
	eq(t, "reshape request", got.Method+" "+got.RawPath+"?"+got.Query, "PATCH /api/widgets/w1/shape?tags=a&tags=b")
	eq(t, "reshape body", canonJSON(t, got.Body), `{"size":"small","window":{"from":1}}`)

	r = srv.Call(t, "plant_tree", must(`{"name":"root","children":[{"name":"kid","children":null}]}`))
	if r.IsError {
		t.Fatalf("strict-form call refused: %s", testkit.Text(r))
	}
	eq(t, "plant_tree body", canonJSON(t, backend.Last(t).Body), `{"children":[{"name":"kid"}],"name":"root"}`)

	// A body over the listed budget: its object fields are JSON text.
	r = srv.Call(t, "bulk_job", must(`{"name":"j","alpha":"{\"enabled\":true,\"level\":3}","bravo":null,"charlie":null,"delta":null,"echo":null,"foxtrot":null}`))
	if r.IsError {
		t.Fatalf("strict-form call refused: %s", testkit.Text(r))
	}
	eq(t, "bulk_job body", canonJSON(t, backend.Last(t).Body), `{"alpha":{"enabled":true,"level":3},"name":"j"}`)

	r = srv.Call(t, "add_note", must(`{"title":"hi","due":null,"meta":{"source":null}}`))
	if r.IsError {
		t.Fatalf("strict-form call refused: %s", testkit.Text(r))
	}
	eq(t, "add_note body", canonJSON(t, backend.Last(t).Body), `{"meta":{},"title":"hi"}`)

	// The full form, as a client that reads --full-schemas would send it.
	r = srv.Call(t, "put_widget", must(`{"id":"w2","body":{"name":"cd","labels":{"env":"dev"},"extra":{"z":2}}}`))
	if r.IsError {
		t.Fatalf("full-form call refused: %s", testkit.Text(r))
	}
	eq(t, "full-form body", canonJSON(t, backend.Last(t).Body), `{"extra":{"z":2},"labels":{"env":"dev"},"name":"cd"}`)

	// The full schema still validates: a name too short is refused with
	// what the model needs to fix it.
	r = srv.Call(t, "put_widget", must(`{"id":"w3","verbose":null,"body":{"name":"a","labels":null,"extra":null}}`))
	if !r.IsError {
		t.Fatalf("a name of one character was accepted")
	}
	contains(t, testkit.Text(r), "body.name")
}

func canonJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %q", s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
