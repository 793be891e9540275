package mcpkit

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Calls one after another reuse one keep-alive connection to the backend,
// whatever the backend answered: a success, an error with a body, a
// redirect (not followed), an empty 204, text, a retried 503. Every
// answer is read to its end, so the connection goes back to the pool; a
// new connection per call would add a TCP handshake to every call. Only a
// body over the size limit drops the connection (the rest of it is not
// transferred), and the next call dials once more.
func TestBackendConnectionReused(t *testing.T) {
	var dials atomic.Int64
	var flaky atomic.Int64
	backend := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimPrefix(r.URL.Path, "/things/") {
		case "missing":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"no such thing"}`)
		case "moved":
			w.Header().Set("Location", "/elsewhere")
			w.WriteHeader(http.StatusFound)
			io.WriteString(w, "<html>moved</html>")
		case "empty":
			w.WriteHeader(http.StatusNoContent)
		case "text":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "plain words")
		case "flaky":
			if flaky.Add(1) == 1 { // once: a retry waits 100 ms
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, "try again")
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"flaky"}`)
		case "huge":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"blob":"`+strings.Repeat("x", 4<<10)+`"}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"x1","name":"a thing"}`)
		}
	}))
	backend.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	backend.Start()
	t.Cleanup(backend.Close)
	tool := &Tool{Name: "get_thing", ReadOnly: true, InputSchema: `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`}
	cfg := Config{BaseURL: backend.URL, Log: io.Discard, Getenv: func(string) string { return "" }, Retries: 1, MaxResponseBytes: 1 << 10}
	s, _, err := NewServer(API{Name: "x", EnvPrefix: "X"}, cfg, func(s *mcp.Server, k *Runtime) {
		k.AddTool(s, tool, func(c *Call) *mcp.CallToolResult {
			r := c.Request(http.MethodGet, "/things/{id}")
			r.Path("id", c.Arg("id"), Simple)
			return c.Do(r)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs := connectInMemory(t, s)
	call := func(id string) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_thing", Arguments: map[string]any{"id": id}})
		if err != nil {
			t.Fatalf("call %s: %v", id, err)
		}
		return res
	}
	ids := []string{"x1", "missing", "moved", "empty", "text", "flaky"}
	for i := 0; i < 20; i++ {
		for _, id := range ids {
			res := call(id)
			if wantErr := id == "missing" || id == "moved"; res.IsError != wantErr {
				t.Fatalf("call %s: isError %v: %s", id, res.IsError, textOf(res))
			}
		}
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("%d calls opened %d connections to the backend, want 1", 20*len(ids), n)
	}
	if res := call("huge"); !res.IsError {
		t.Fatalf("a body over the limit was not refused: %s", textOf(res))
	}
	call("x1")
	call("x1")
	if n := dials.Load(); n != 2 {
		t.Fatalf("after a body over the limit and two calls: %d connections, want 2", n)
	}
}
