package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/oidctest"
	"github.com/tailormcp/tailor/internal/testkit"
)

// TestInspectorOAuthBearer drives the generated back-office server over
// streamable HTTP with the MCP Inspector CLI, as an OAuth resource server
// of a loopback issuer: with a token holding every scope it lists and
// calls the tools; with a read-only token it is offered the read tools
// only, and cannot call a write tool; without
// a token it is told to sign in.
func TestInspectorOAuthBearer(t *testing.T) {
	inspector := inspectorBin(t)
	iss := oidctest.Start(t)
	rig := newShop(t)
	srv := testkit.RunHTTP(t, backofficeBinary(t), oauthEnv(rig, iss), "--stateless")
	over := func(token string, args ...string) *inspectorRun {
		full := []string{"--cli", srv.Endpoint, "--transport", "http"}
		if token != "" {
			full = append(full, "--header", "Authorization: Bearer "+token)
		}
		return runInspector(t, inspector, append(full, args...))
	}
	listed := func(r *inspectorRun) []string {
		if r.code != 0 {
			t.Fatalf("tools/list failed\n%s", r)
		}
		var res struct{ Tools []struct{ Name string } }
		if err := json.Unmarshal(r.out.Result, &res); err != nil {
			t.Fatalf("tools/list result: %v\n%s", err, r)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		return names
	}
	all := customerToken(t, iss, iss.Keys()[1], allBackofficeScopes)
	eq(t, "all scopes: tools", strings.Join(listed(over(all, "--method", "tools/list")), ","), "create_return,get_order,order_status,quote_refund,refund_items,update_shipping_address")
	res := over(all, "--method", "tools/call", "--tool-name", "get_order", "--tool-args-json", `{"order_id":"5531"}`).callResult(t)
	eq(t, "get_order: isError", res.IsError, false)
	contains(t, res.text(), "Order 5531")

	reader := customerToken(t, iss, iss.Keys()[2], "orders:read")
	eq(t, "reader: tools", strings.Join(listed(over(reader, "--method", "tools/list")), ","), "get_order,order_status")
	// The Inspector checks its tools/list before calling: the write tool
	// is not there for this token.
	r := over(reader, "--method", "tools/call", "--tool-name", "update_shipping_address", "--tool-args-json", `{"order_id":"5531"}`)
	if code, msg := r.errorEnvelope(t); code != "tool_not_found" {
		t.Fatalf("reader's call of a write tool: %s %s\n%s", code, msg, r)
	}

	r = over("", "--method", "tools/list")
	if r.code == 0 {
		t.Fatalf("tools/list without a token succeeded\n%s", r)
	}
	// It read the challenge and the metadata: an OAuth sign-in is needed.
	if code, msg := r.errorEnvelope(t); code != "auth_required" {
		t.Fatalf("without a token: %s %s\n%s", code, msg, r)
	}
}
