package e2e

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/review/cost"
	"github.com/tailormcp/tailor/internal/testkit"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the README's dynamic-mode transcript from this run of TestReadmeDynamicStripe")

const (
	readmeBegin = "<!-- dynamic-stripe: written by TestReadmeDynamicStripe (go test ./e2e -run TestReadmeDynamicStripe -update-readme) -->\n"
	readmeEnd   = "<!-- /dynamic-stripe -->"
)

// TestReadmeDynamicStripe runs stripe's raw tool set (468 tools) with
// `tailor serve --dynamic` against a loopback backend and keeps the
// README's transcript of it true: what the model is offered at start,
// then a search and a call through call_tool (two round trips from
// "which tool lists a customer's invoices" to the answer).
func TestReadmeDynamicStripe(t *testing.T) {
	dir := testkit.CorpusDir()
	if dir == "" {
		t.Skip("corpus not found beside the repository (../shared/corpus)")
	}
	backend := testkit.NewBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","url":"/v1/invoices","has_more":false,"data":[{"id":"in_1","object":"invoice","customer":"cus_123","amount_due":2000,"currency":"usd","status":"open"}]}`)
	})
	srv := testkit.StartStdio(t, tailorBinary(t), []string{"STRIPE_BEARER_AUTH_TOKEN=sk_test_x"},
		"serve", "--spec", filepath.Join(dir, "stripe.yaml"), "--name", "stripe", "--", "--dynamic", "--base-url", backend.URL)

	var b strings.Builder
	listed := corpusListTools(t, srv)
	// The figure is the one tailor diff and lint give; the listing must be
	// the very tool definitions it counts.
	var want struct{ Tools []any }
	if err := json.Unmarshal(cost.DynamicStartList(), &want); err != nil {
		t.Fatal(err)
	}
	live, _ := json.Marshal(listed)
	var liveTools []any
	if err := json.Unmarshal(live, &liveTools); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(liveTools, want.Tools) {
		t.Fatalf("the server's start listing is not the one tailor diff counts:\n%s\nwant\n%s", live, cost.DynamicStartList())
	}
	fmt.Fprintf(&b, "== tools/list: what the model is offered (%d tools, %s o200k tokens; without --dynamic: 468 tools) ==\n", len(listed), thousandsSep(cost.DynamicStart().Tokens))
	for _, tool := range listed {
		fmt.Fprintf(&b, "- %s\n", tool.Name)
	}
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		a, _ := json.Marshal(args)
		fmt.Fprintf(&b, "\n== tools/call %s %s ==\n", name, a)
		res := srv.Call(t, name, args)
		fmt.Fprintf(&b, "isError: %v\n%s\n", res.IsError, testkit.Text(res))
		return res
	}
	res := call("search_tools", map[string]any{"query": "list invoices of a customer", "limit": 3})
	if !strings.Contains(testkit.Text(res), "\n- get_invoices (toolset invoices): ") {
		t.Fatalf("search does not rank get_invoices first:\n%s", testkit.Text(res))
	}
	res = call("call_tool", map[string]any{"name": "get_invoices", "arguments": map[string]any{"customer": "cus_123", "limit": 3}})
	got := backend.Last(t)
	fmt.Fprintf(&b, "\n(the backend received %s %s?%s)\n", got.Method, got.RawPath, got.Query)
	if res.IsError || got.RawPath != "/v1/invoices" || !strings.Contains(got.Query, "customer=cus_123") {
		t.Fatalf("call_tool get_invoices: %s; backend got %s %s?%s", testkit.Text(res), got.Method, got.RawPath, got.Query)
	}

	transcript := readmeBegin + "```\n" + b.String() + "```\n" + readmeEnd
	path := filepath.Join(testkit.RepoRoot(), "README.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(readme), readmeBegin)
	end := strings.Index(string(readme), readmeEnd)
	if start < 0 || end < start {
		t.Fatalf("README.md has no dynamic-stripe block (%q … %q)", strings.TrimSpace(readmeBegin), readmeEnd)
	}
	current := string(readme[start : end+len(readmeEnd)])
	if current == transcript {
		return
	}
	if *updateReadme {
		if err := os.WriteFile(path, []byte(string(readme[:start])+transcript+string(readme[end+len(readmeEnd):])), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's dynamic-mode transcript is stale (go test ./e2e -run TestReadmeDynamicStripe -update-readme rewrites it); it is now:\n%s", transcript)
}

func thousandsSep(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
