package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/generate/schema"
	"github.com/tailormcp/tailor/internal/testkit"
)

// TestListedTokens generates a server from testdata/e2e/tokens and checks
// what the token-saving transforms of the listed tool set do, as a client
// sees them: the cursor five tools describe alike is described once, in
// the instructions, and each listed schema keeps its first sentence; a body over the listed budget
// lists its nested objects as JSON text naming their fields; every listed
// schema keeps the strict rules. A call with the deep body as JSON text
// reaches the backend as the nested object, and the full schema still
// validates it: a unit deep inside that is not one of the spec's is refused
// with its place. In dynamic mode describe_tool shows the full schema.
func TestListedTokens(t *testing.T) {
	m := testkit.NewModule(t)
	m.Generate(t, filepath.Join(testkit.RepoRoot(), "testdata", "e2e", "tokens", "openapi.yaml"), "tokensrv")
	bin := m.Compile(t, "tokensrv")["tokensrv"]
	backend := testkit.NewBackend(t, jsonReply(201, `{"id":"s1"}`))
	env := []string{"TOKENSRV_BASE_URL=" + backend.URL + "/api"}
	srv := testkit.StartStdio(t, bin, env)

	const cursor = "Where the previous page ended. Leave it out for the first page; pass the next_cursor of the previous answer."
	contains(t, srv.Session.InitializeResult().Instructions, "\n- cursor: "+cursor)

	res, err := srv.Session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]map[string]any{}
	for _, tl := range res.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		if strings.Contains(string(b), "next_cursor of the previous answer") {
			t.Errorf("%s repeats the shared cursor text beyond its first sentence: %s", tl.Name, b)
		}
		if p := schema.CheckStrict(b); len(p) > 0 {
			t.Errorf("%s lists a schema strict mode refuses: %v", tl.Name, p)
		}
		var s map[string]any
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		schemas[tl.Name] = s
	}
	if len(schemas) != 6 {
		t.Fatalf("%d tools listed, want 6", len(schemas))
	}
	props := func(tool string) map[string]any {
		p, _ := schemas[tool]["properties"].(map[string]any)
		return p
	}
	arg := func(tool, name string) map[string]any {
		a, _ := props(tool)[name].(map[string]any)
		if a == nil {
			t.Fatalf("%s lists no argument %s: %v", tool, name, props(tool))
		}
		return a
	}
	// Every argument stays listed and typed.
	eq(t, "list_alphas cursor", compactJSON(arg("list_alphas", "cursor")), `{"description":"Where the previous page ended.","type":["string","null"]}`)
	eq(t, "create_shipment reference", arg("create_shipment", "reference")["description"], "Your reference for the shipment, printed on the label.")
	for _, name := range []string{"cursor", "parcel", "recipient", "reference", "sender"} {
		if a := arg("create_shipment", name); a["type"] == nil {
			t.Errorf("create_shipment's %s has no type: %v", name, a)
		}
	}
	parcel := arg("create_shipment", "parcel")
	eq(t, "parcel type", parcel["type"], "string")
	contains(t, parcel["description"].(string), "JSON object with fields dimensions, weight.")
	// A component summarised to text and used once is written in place.
	eq(t, "recipient type", compactJSON(arg("create_shipment", "recipient")["type"]), `["string","null"]`)
	if defs := schemas["create_shipment"]["$defs"]; defs != nil {
		t.Errorf("create_shipment keeps definitions: %v", defs)
	}

	// The deep body, as a strict client sends it.
	r := srv.Call(t, "create_shipment", map[string]any{
		"reference": "r-1", "cursor": nil, "sender": nil,
		"parcel":    `{"weight":2.5,"dimensions":{"unit":"cm","length":40,"width":30,"height":10}}`,
		"recipient": `{"name":"Ana","address":{"line1":"Rua 1","city":"Porto","country":"PT"}}`,
	})
	if r.IsError {
		t.Fatalf("deep body refused: %s", testkit.Text(r))
	}
	got := backend.Last(t)
	backend.Take()
	eq(t, "request", got.Method+" "+got.RawPath, "POST /api/shipments")
	eq(t, "body", canonJSON(t, got.Body),
		`{"parcel":{"dimensions":{"height":10,"length":40,"unit":"cm","width":30},"weight":2.5},"recipient":{"address":{"city":"Porto","country":"PT","line1":"Rua 1"},"name":"Ana"},"reference":"r-1"}`)

	// The full schema validates what the listed one no longer says.
	r = srv.Call(t, "create_shipment", map[string]any{
		"reference": "r-2", "cursor": nil, "sender": nil, "recipient": nil,
		"parcel": `{"dimensions":{"unit":"furlong","length":1}}`,
	})
	if !r.IsError {
		t.Fatalf("a unit the spec does not list was accepted")
	}
	contains(t, testkit.Text(r), "parcel.dimensions.unit")
	eq(t, "requests after the refused call", len(backend.Take()), 0)

	// Dynamic mode: the full schema, descriptions and all, one describe_tool away.
	dyn := testkit.StartStdio(t, bin, env, "--dynamic")
	r = dyn.Call(t, "describe_tool", map[string]any{"name": "create_shipment"})
	contains(t, testkit.Text(r), "The unit of every length.", `"cm"`)
	r = dyn.Call(t, "describe_tool", map[string]any{"name": "list_alphas"})
	contains(t, testkit.Text(r), cursor)
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
