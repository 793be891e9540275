package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/testkit"
)

// TestStdoutCarriesProtocolOnly speaks raw JSON-RPC to the server over
// stdio and checks that every line it prints on stdout is a JSON-RPC
// message, while its logs go to stderr.
func TestStdoutCarriesProtocolOnly(t *testing.T) {
	backend := testkit.NewBackend(t, jsonReply(200, `{"order_id":"1","status":"open"}`))
	cmd := exec.Command(shopBinary(t))
	cmd.Env = append(cmd.Environ(), "SHOP_BASE_URL="+backend.URL, "SHOP_API_KEY="+apiKey)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_order","arguments":{"order_id":"1"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_order","arguments":{"order_id":5}}}`,
	} {
		io.WriteString(stdin, msg+"\n")
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	ids := map[float64]bool{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Errorf("stdout line is not JSON-RPC: %q", sc.Text())
				continue
			}
			if id, ok := m["id"].(float64); ok {
				ids[id] = true
			}
			if len(ids) == 4 {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("no answer to every request; stderr:\n%s", stderr.String())
	}
	stdin.Close()
	cmd.Wait()
	if !strings.Contains(stderr.String(), `"msg":"audit"`) {
		t.Errorf("expected the audit log on stderr, got:\n%s", stderr.String())
	}
}

// TestToolDefinitions checks what tools/list tells the model.
func TestToolDefinitions(t *testing.T) {
	srv := startShop(t, shopServers()[0], "stdio", "http://127.0.0.1:1")
	res, err := srv.Session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
	}
	if len(tools) != 9 {
		t.Fatalf("got %d tools, want 9", len(tools))
	}
	get := tools["get_order"]
	eq(t, "title", get.Title, "Get one order")
	eq(t, "description", get.Description, "Returns one order with its line items.")
	eq(t, "readOnly", get.Annotations.ReadOnlyHint, true)
	eq(t, "openWorld", *get.Annotations.OpenWorldHint, true)
	if get.OutputSchema == nil {
		t.Error("get_order has no outputSchema")
	}
	del := tools["delete_order"]
	eq(t, "delete readOnly", del.Annotations.ReadOnlyHint, false)
	eq(t, "delete destructive", *del.Annotations.DestructiveHint, true)
	eq(t, "delete idempotent", del.Annotations.IdempotentHint, true)
	create := tools["create_order"]
	eq(t, "create destructive", *create.Annotations.DestructiveHint, false)
	eq(t, "create idempotent", create.Annotations.IdempotentHint, false)
	in, _ := json.Marshal(create.InputSchema)
	for _, want := range []string{`"body_id"`, `named body_id because another input is called id`, `"type":["string","null"]`} {
		if !strings.Contains(string(in), want) {
			t.Errorf("create_order inputSchema lacks %s:\n%s", want, in)
		}
	}
	if strings.Contains(string(in), `"order_id"`) {
		t.Errorf("readOnly order_id must not be an input of create_order:\n%s", in)
	}
	contains(t, tools["upload"].Description, "Deprecated")
	if tools["put_notes"].OutputSchema != nil {
		t.Error("a text/plain response must not have an outputSchema")
	}
}

// TestPassThroughAuthorization checks that, over HTTP and only when asked,
// the caller's Authorization header replaces the configured credential.
func TestPassThroughAuthorization(t *testing.T) {
	backend := testkit.NewBackend(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	hc := &http.Client{Transport: headerRoundTripper{"Authorization": "Bearer user-token"}}
	env := []string{"SHOP_BASE_URL=" + backend.URL, "SHOP_BEARER_TOKEN=server-token"}

	on := testkit.StartHTTPClient(t, shopBinary(t), env, hc, "--pass-through-auth")
	on.Call(t, "delete_order", map[string]any{"order_id": "1"})
	eq(t, "forwarded", backend.Last(t).Header.Get("Authorization"), "Bearer user-token")

	off := testkit.StartHTTPClient(t, shopBinary(t), env, hc)
	off.Call(t, "delete_order", map[string]any{"order_id": "1"})
	eq(t, "not forwarded", backend.Last(t).Header.Get("Authorization"), "Bearer server-token")
}

type headerRoundTripper map[string]string

func (h headerRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}
