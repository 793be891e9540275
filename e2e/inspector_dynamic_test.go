package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/testkit"
)

// TestInspectorDynamic drives the raw shop server in dynamic mode with the
// MCP Inspector CLI: tools/list --strict shows the meta-tools only, and a
// call through call_tool reaches the API as a direct call would.
func TestInspectorDynamic(t *testing.T) {
	inspector := inspectorBin(t)
	server := shopBinary(t)
	const order = `{"order_id":"5531","status":"open","total":1430,"items":[{"line_item_id":"li_1","price":1200}]}`
	backend := testkit.NewBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, order)
	})
	// The Inspector runs the server without arguments: dynamic mode from
	// the environment.
	env := []string{"SHOP_BASE_URL=" + backend.URL + "/api", "SHOP_API_KEY=" + inspectorAPIKey, "SHOP_DYNAMIC=true"}

	r := inspect(t, inspector, server, env, "--method", "tools/list", "--strict")
	if r.code != 0 {
		t.Fatalf("tools/list --strict failed\n%s", r)
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.out.Result, &list); err != nil {
		t.Fatalf("tools/list: %v\n%s", err, r)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	eq(t, "tools", strings.Join(names, ","), metaTools)
	for _, tf := range r.out.SchemaFindings {
		for _, f := range tf.Findings {
			t.Errorf("schema finding on a meta-tool: tool %s: %s.%s: [%s %s] %s", tf.ToolName, f.Schema, f.Path, f.Severity, f.Rule, f.Issue)
		}
	}

	r = inspect(t, inspector, server, env, "--method", "tools/call", "--tool-name", "search_tools", "--tool-args-json", `{"query":"get order"}`)
	if r.code != 0 {
		t.Fatalf("search_tools failed\n%s", r)
	}
	contains(t, r.callResult(t).text(), "- get_order (toolset orders): ")

	backend.Take()
	r = inspect(t, inspector, server, env, "--method", "tools/call", "--tool-name", "call_tool", "--tool-args-json", `{"name":"get_order","arguments":{"order_id":"5531"}}`)
	if r.code != 0 {
		t.Fatalf("call_tool failed\n%s", r)
	}
	res := r.callResult(t)
	eq(t, "isError", res.IsError, false)
	eq(t, "text", res.text(), order)
	got := backend.Last(t)
	eq(t, "path", got.RawPath, "/api/orders/5531")
	eq(t, "api key", got.Header.Get("X-Api-Key"), inspectorAPIKey)
}
