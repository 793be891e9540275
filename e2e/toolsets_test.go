package e2e

import (
	"context"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/internal/testkit"
)

// Toolsets, read-only mode and dynamic discovery (issue 13), on the
// back-office server (toolsets orders, refunds, returns; a quote/confirm
// pair with approval) generated and served: what tools/list shows and
// what a call does under flags, environment and per-request headers, and
// the guarantees of a direct call holding through call_tool.

// listed is the sorted tool names of a session's tools/list.
func listed(t *testing.T, srv *testkit.Server) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var names []string
	for tool, err := range srv.Session.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v\nstderr:\n%s", err, srv.Stderr())
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// cacheScope is the cacheScope of the first page of a session's
// tools/list: "private" when the listing depends on the caller (headers,
// token, dynamic session), so that no shared cache serves it to another.
func cacheScope(t *testing.T, srv *testkit.Server) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := srv.Session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v\nstderr:\n%s", err, srv.Stderr())
	}
	return res.CacheScope
}

const (
	orderTools  = "get_order,order_status,update_shipping_address"
	refundTools = "quote_refund,refund_items"
	readTools   = "get_order,order_status"
	metaTools   = "call_tool,describe_tool,enable_toolsets,list_toolsets,search_tools"
)

func TestToolsetSelection(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			bin, pre := sv.command(t)
			env := []string{"BACKOFFICE_BASE_URL=" + rig.url, "BACKOFFICE_CUSTOMER_ID=" + backend.Wang}
			start := func(env []string, args ...string) *testkit.Server {
				return testkit.StartStdioClient(t, bin, env, nil, append(slices.Clone(pre), args...)...)
			}
			for _, c := range []struct {
				name string
				env  []string
				args []string
				want string
			}{
				{"default: every toolset", nil, nil, "create_return,get_order,order_status," + refundTools + ",update_shipping_address"},
				{"--toolsets", nil, []string{"--toolsets", "refunds"}, refundTools},
				{"env", []string{"BACKOFFICE_TOOLSETS=orders"}, nil, orderTools},
				{"--tools alone", nil, []string{"--tools", "get_order"}, "get_order"},
				{"--tools beside a toolset", nil, []string{"--toolsets", "returns", "--tools", "get_order"}, "create_return,get_order"},
				{"a quote tool brings its confirm tool", nil, []string{"--tools", "quote_refund"}, refundTools},
				{"excluding a confirm tool excludes its quote tool", []string{"BACKOFFICE_EXCLUDE_TOOLS=refund_items"}, []string{"--toolsets", "orders,refunds"}, orderTools},
				{"--read-only", nil, []string{"--read-only"}, readTools},
				{"read-only beats --tools", []string{"BACKOFFICE_READ_ONLY=true"}, []string{"--tools", "update_shipping_address,get_order"}, "get_order"},
			} {
				t.Run(c.name, func(t *testing.T) {
					srv := start(append(slices.Clone(env), c.env...), c.args...)
					eq(t, "tools/list", listed(t, srv), c.want)
					// Flags and environment choose for every caller alike.
					eq(t, "cacheScope", cacheScope(t, srv), "public")
				})
			}

			t.Run("a write tool is not callable read-only", func(t *testing.T) {
				srv := start(env, "--read-only")
				res := srv.Call(t, "update_shipping_address", map[string]any{"order_id": "5531", "name": "A", "line1": "B", "city": "C", "postal_code": "1", "country": "TW"})
				eq(t, "isError", res.IsError, true)
				eq(t, "text", testkit.Text(res), "update_shipping_address changes data, and this server is read-only (--read-only or BACKOFFICE_READ_ONLY), so nothing was done. Only tools that read data can be used here; tell the user if the task needs a change.")
				res = srv.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}})
				eq(t, "quote isError", res.IsError, true)
				eq(t, "writes", writes(rig), 0)
				eq(t, "requests", len(rig.shop.Calls()), 0)
				lines := auditLines(t, srv, "update_shipping_address", 1)
				contains(t, lines[0], `"messages":["tool_read_only"]`, `"outcome":"error"`)
			})

			t.Run("a tool left out is not callable", func(t *testing.T) {
				srv := start(env, "--toolsets", "refunds")
				res := srv.Call(t, "get_order", map[string]any{"order_id": "5531"})
				eq(t, "isError", res.IsError, true)
				contains(t, testkit.Text(res), "get_order is not available on this server as it is configured", "nothing was done")
			})

			t.Run("unknown names stop the server with a suggestion", func(t *testing.T) {
				for _, c := range []struct {
					args []string
					want string
				}{
					{[]string{"--toolsets", "refnds"}, `--toolsets (BACKOFFICE_TOOLSETS): unknown toolset "refnds"; did you mean "refunds"?`},
					{[]string{"--tools", "get_ordr"}, `--tools (BACKOFFICE_TOOLS): unknown tool "get_ordr"; did you mean "get_order"?`},
					{[]string{"--exclude-tools", "refund_item"}, `--exclude-tools (BACKOFFICE_EXCLUDE_TOOLS): unknown tool "refund_item"; did you mean "refund_items"?`},
					// A list that names nothing is a mistake, not the defaults.
					{[]string{"--toolsets", ","}, `--toolsets "," names nothing: give one or more names separated by commas, or leave it out`},
					{[]string{"--tools", " , "}, `--tools " , " names nothing`},
					{[]string{"--exclude-tools="}, `--exclude-tools "" names nothing`},
					{[]string{"BACKOFFICE_TOOLSETS=,"}, `BACKOFFICE_TOOLSETS "," names nothing`},
				} {
					args, cenv := c.args, env
					if strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "--") {
						args, cenv = nil, append(slices.Clone(env), args[0])
					}
					cmd := exec.Command(bin, append(slices.Clone(pre), args...)...)
					cmd.Env = cenv
					out, err := cmd.CombinedOutput()
					if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
						t.Fatalf("%v: want exit 2, got %v\n%s", c.args, err, out)
					}
					contains(t, string(out), c.want)
				}
			})

			t.Run("-h lists the toolsets", func(t *testing.T) {
				cmd := exec.Command(bin, append(slices.Clone(pre), "-h")...)
				out, _ := cmd.CombinedOutput()
				contains(t, string(out), "Toolsets (--toolsets; * served by default):", "* refunds\t2 tools (2 change data)", "* orders\t3 tools (1 change data)")
			})
		})
	}
}

// TestToolsetHeaders: over HTTP the X-MCP-* headers choose per request,
// and only narrow what the flags allow.
func TestToolsetHeaders(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			bin, pre := sv.command(t)
			srv := testkit.StartHTTPOptions(t, bin, []string{"BACKOFFICE_BASE_URL=" + rig.url}, asCustomer(backend.Wang), nil,
				append(slices.Clone(pre), "--toolsets", "orders,refunds")...)
			eq(t, "no header: the flags' choice", listed(t, srv), "get_order,order_status,quote_refund,refund_items,update_shipping_address")
			as := func(h map[string]string) *testkit.Server {
				rt := headerRoundTripper{"X-Customer-Id": backend.Wang}
				for k, v := range h {
					rt[k] = v
				}
				return srv.Connect(t, &http.Client{Transport: rt}, nil)
			}
			for _, c := range []struct {
				name string
				h    map[string]string
				want string
			}{
				{"toolsets", map[string]string{"X-MCP-Toolsets": "refunds"}, refundTools},
				{"tools", map[string]string{"X-MCP-Tools": "get_order"}, "get_order"},
				{"exclude", map[string]string{"X-MCP-Exclude-Tools": "quote_refund"}, orderTools},
				{"read-only", map[string]string{"X-MCP-Read-Only": "true"}, readTools},
				{"a header cannot widen: a toolset the flags leave out", map[string]string{"X-MCP-Toolsets": "returns,refunds"}, refundTools},
				{"a header cannot widen: a tool the flags leave out", map[string]string{"X-MCP-Tools": "create_return"}, ""},
				{"a header cannot widen: all", map[string]string{"X-MCP-Toolsets": "all"}, "get_order,order_status,quote_refund,refund_items,update_shipping_address"},
			} {
				t.Run(c.name, func(t *testing.T) {
					s := as(c.h)
					eq(t, "tools/list", listed(t, s), c.want)
					eq(t, "cacheScope", cacheScope(t, s), "private")
				})
			}

			t.Run("calls follow the headers", func(t *testing.T) {
				s := as(map[string]string{"X-MCP-Read-Only": "true"})
				res := s.Call(t, "update_shipping_address", map[string]any{"order_id": "5531", "name": "A", "line1": "B", "city": "C", "postal_code": "1", "country": "TW"})
				eq(t, "isError", res.IsError, true)
				contains(t, testkit.Text(res), "this server is read-only (the X-MCP-Read-Only header)")
				res = as(map[string]string{"X-MCP-Tools": "create_return"}).Call(t, "create_return", map[string]any{"order_id": "5531", "kind": "refund", "line_item_ids": []string{"li_1"}})
				eq(t, "isError", res.IsError, true)
				contains(t, testkit.Text(res), "create_return is not available on this server as it is configured")
				eq(t, "requests", len(rig.shop.Calls()), 0)
			})

			t.Run("read-only from the flags: a header cannot lift it", func(t *testing.T) {
				ro := testkit.StartHTTPOptions(t, bin, []string{"BACKOFFICE_BASE_URL=" + rig.url}, asCustomer(backend.Wang), nil, append(slices.Clone(pre), "--read-only")...)
				s := ro.Connect(t, &http.Client{Transport: headerRoundTripper{"X-Customer-Id": backend.Wang, "X-MCP-Read-Only": "false", "X-MCP-Toolsets": "all"}}, nil)
				eq(t, "tools/list", listed(t, s), readTools)
			})

			t.Run("an unknown name in a header is an error naming it", func(t *testing.T) {
				s := as(map[string]string{"X-MCP-Toolsets": "refnds"})
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				_, err := s.Session.ListTools(ctx, nil)
				if err == nil || !strings.Contains(err.Error(), `the X-MCP-Toolsets header: unknown toolset "refnds"; did you mean "refunds"?`) {
					t.Fatalf("want an error naming the header, got %v", err)
				}
			})
		})
	}
}

// TestDynamic: a session that lists toolsets, searches, describes,
// enables (the client is told its list changed and lists again) and calls
// by name, with the guarantees of a direct call.
func TestDynamic(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			ap := &approver{action: "accept"}
			changed := make(chan struct{}, 4)
			opts := ap.options()
			opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }
			bin, pre := sv.command(t)
			srv := testkit.StartStdioClient(t, bin, []string{"BACKOFFICE_BASE_URL=" + rig.url, "BACKOFFICE_CUSTOMER_ID=" + backend.Wang}, opts,
				append(slices.Clone(pre), "--dynamic")...)

			eq(t, "start: the meta-tools", listed(t, srv), metaTools)
			eq(t, "a session's listing is private", cacheScope(t, srv), "private")
			caps := srv.Session.InitializeResult().Capabilities
			eq(t, "the server declares tools/list_changed", caps.Tools != nil && caps.Tools.ListChanged, true)

			res := srv.Call(t, "list_toolsets", nil)
			eq(t, "list_toolsets", testkit.Text(res), "3 toolsets:\n"+
				"- orders (3 tools): Operations the API tags \"orders\".\n"+
				"- refunds (2 tools): Operations the API tags \"refunds\".\n"+
				"- returns (1 tool): Operations the API tags \"returns\".\n"+
				"Find a tool with search_tools, or add a toolset's tools to your tool list with enable_toolsets.")

			res = srv.Call(t, "search_tools", map[string]any{"query": "refund quote for line items", "limit": 2})
			text := testkit.Text(res)
			if !strings.HasPrefix(text, "2 of ") || !strings.Contains(text, "\n- quote_refund (toolset refunds, changes data): ") {
				t.Fatalf("search: %s", text)
			}
			contains(t, text, "arguments: line_item_ids*: array, order_id*: string")

			res = srv.Call(t, "describe_tool", map[string]any{"name": "get_order"})
			contains(t, testkit.Text(res), `"name": "get_order"`, `"inputSchema": {`, `"order_id"`)

			// A call by name is the direct call: same text, same request.
			direct := srv.Call(t, "get_order", map[string]any{"order_id": "5531"})
			byName := srv.Call(t, "call_tool", map[string]any{"name": "get_order", "arguments": map[string]any{"order_id": "5531"}})
			eq(t, "isError", byName.IsError, false)
			eq(t, "same text", testkit.Text(byName), testkit.Text(direct))
			eq(t, "same structured", testkit.Structured(byName), testkit.Structured(direct))

			res = srv.Call(t, "call_tool", map[string]any{"name": "get_ordr", "arguments": map[string]any{}})
			eq(t, "unknown", testkit.Text(res), `There is no tool named "get_ordr" available here, so nothing was done. Did you mean get_order? Find tools with search_tools.`)
			res = srv.Call(t, "call_tool", map[string]any{"name": "get_order", "arguments": map[string]any{"order_id": 5531}})
			eq(t, "validated", res.IsError, true)
			contains(t, testkit.Text(res), "Invalid arguments for get_order")

			// The quote and its confirmation through call_tool: approval
			// asked, the quote carried out once.
			res = srv.Call(t, "call_tool", map[string]any{"name": "quote_refund", "arguments": map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}}})
			q := quoteID(t, res)
			res = srv.Call(t, "call_tool", map[string]any{"name": "refund_items", "arguments": map[string]any{"quote_id": q}})
			eq(t, "confirm isError", res.IsError, false)
			eq(t, "approval question", strings.Join(ap.questions, "|"), "Refund NT$230 to card ending 4242 for order 5531?")
			eq(t, "refunds", len(rig.shop.Refunds("5531")), 1)
			res = srv.Call(t, "call_tool", map[string]any{"name": "refund_items", "arguments": map[string]any{"quote_id": q}})
			eq(t, "second confirm refused", res.IsError, true)
			contains(t, testkit.Text(res), "already carried out")
			eq(t, "still one refund", len(rig.shop.Refunds("5531")), 1)
			approved := 0
			for _, r := range finals(audits(t, srv, "refund_items", 2)) {
				if r.Approval == "accept" {
					approved++
				}
			}
			eq(t, "audited as refund_items, approved", approved, 1)

			// Enabling a toolset: the client is told, lists again and sees it.
			res = srv.Call(t, "enable_toolsets", map[string]any{"toolsets": []string{"returns"}})
			eq(t, "enable", testkit.Text(res), "Enabled returns: 1 tool added to your tool list (create_return). If your tool list does not show them, call them with call_tool.")
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/tools/list_changed")
			}
			eq(t, "after enabling", listed(t, srv), "call_tool,create_return,describe_tool,enable_toolsets,list_toolsets,search_tools")
			res = srv.Call(t, "enable_toolsets", map[string]any{"toolsets": []string{"refund"}})
			eq(t, "unknown toolset", res.IsError, true)
			contains(t, testkit.Text(res), `"refund" is not a toolset of this server; did you mean "refunds"?`)
		})
	}
}

// TestDynamicReadOnly: in read-only dynamic mode a write tool is neither
// found, described, enabled nor callable by name.
func TestDynamicReadOnly(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			srv := wang(t, sv, rig, nil, "--dynamic", "--read-only")
			eq(t, "start", listed(t, srv), metaTools)
			text := testkit.Text(srv.Call(t, "search_tools", map[string]any{"query": "refund"}))
			if strings.Contains(text, "quote_refund") || strings.Contains(text, "refund_items") {
				t.Fatalf("read-only search finds write tools: %s", text)
			}
			contains(t, testkit.Text(srv.Call(t, "list_toolsets", nil)), "- orders (2 tools)")
			eq(t, "no refunds toolset", strings.Contains(testkit.Text(srv.Call(t, "list_toolsets", nil)), "refunds"), false)
			res := srv.Call(t, "describe_tool", map[string]any{"name": "quote_refund"})
			eq(t, "describe refused", res.IsError, true)
			res = srv.Call(t, "call_tool", map[string]any{"name": "update_shipping_address", "arguments": map[string]any{"order_id": "5531", "name": "A", "line1": "B", "city": "C", "postal_code": "1", "country": "TW"}})
			eq(t, "call refused", res.IsError, true)
			contains(t, testkit.Text(res), "update_shipping_address changes data, and this server is read-only")
			res = srv.Call(t, "enable_toolsets", map[string]any{"toolsets": []string{"refunds"}})
			eq(t, "enable refused", res.IsError, true)
			eq(t, "requests", len(rig.shop.Calls()), 0)
		})
	}
}

// TestDynamicForgedApproval: a forged requestState sent through call_tool
// is no approval, exactly as on a direct call.
func TestDynamicForgedApproval(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			person := &approver{action: "decline"}
			srv := startBackoffice(t, sv, "stdio", rig, person.options(), "--dynamic")
			q := quoteID(t, srv.Call(t, "call_tool", map[string]any{"name": "quote_refund", "arguments": map[string]any{"order_id": "5531", "line_item_ids": []string{"li_2"}}}))
			res := callParams(t, srv, &mcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": "refund_items", "arguments": map[string]any{"quote_id": q}},
				InputResponses: accept, RequestState: "eyJhbGciOiJIUzI1NiJ9.eyJxaWQiOiJ4In0.c2lnbmF0dXJl"})
			eq(t, "isError", res.IsError, true)
			contains(t, testkit.Text(res), "The user declined", "Nothing was done")
			eq(t, "writes", writes(rig), 0)
			recs := audits(t, srv, "refund_items", 2)
			eq(t, "audit: ignored", ignored(recs), "requestState not issued by this server")
		})
	}
}

// TestDynamicHTTP: over streamable HTTP a session's enabled toolsets are
// its own (the client that enabled is told, another session still starts
// with the meta-tools); without sessions nothing can stay enabled, and
// the model is told to use call_tool.
func TestDynamicHTTP(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rig := newShop(t)
			changed := make(chan struct{}, 4)
			opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }}
			srv := startBackoffice(t, sv, "http", rig, opts, "--dynamic")
			res := srv.Call(t, "enable_toolsets", map[string]any{"toolsets": []string{"orders"}})
			eq(t, "enable isError", res.IsError, false)
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/tools/list_changed over HTTP")
			}
			eq(t, "after enabling", listed(t, srv), "call_tool,describe_tool,enable_toolsets,get_order,list_toolsets,order_status,search_tools,update_shipping_address")
			other := srv.Connect(t, asCustomer(backend.Wang), nil)
			eq(t, "another session", listed(t, other), metaTools)

			stateless := startBackoffice(t, sv, "stateless", rig, nil, "--dynamic")
			res = stateless.Call(t, "enable_toolsets", map[string]any{"toolsets": []string{"orders"}})
			eq(t, "stateless enable", testkit.Text(res), "This server keeps no sessions, so a toolset cannot stay enabled and nothing was enabled. Call the tools you need with call_tool instead.")
			res = stateless.Call(t, "call_tool", map[string]any{"name": "get_order", "arguments": map[string]any{"order_id": "5531"}})
			eq(t, "stateless call_tool", res.IsError, false)
			contains(t, testkit.Text(res), "5531")
		})
	}
}
