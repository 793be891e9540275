package mcpkit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lockedBuffer collects audit lines written while calls run.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("audit line is not JSON: %s", line)
		}
		if rec["msg"] == "audit" {
			out = append(out, rec)
		}
	}
	return out
}

// auditServer registers one tool calling GET /things/{id} with an error rule
// for 409, against a backend answering 404 for "missing", 409 for "taken"
// and 400 naming a field for "bad".
func auditServer(t *testing.T, log io.Writer) (*mcp.Server, *Runtime) {
	t.Helper()
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch strings.TrimPrefix(r.URL.Path, "/things/") {
		case "missing":
			w.WriteHeader(404)
			w.Write([]byte(`{"message":"no such thing"}`))
		case "taken":
			w.WriteHeader(409)
			w.Write([]byte(`{"code":"taken"}`))
		case "bad":
			w.WriteHeader(400)
			w.Write([]byte(`{"field":"id","message":"malformed"}`))
		default:
			w.Write([]byte(`{"id":"x"}`))
		}
	}))
	t.Cleanup(backend.Close)
	tool := &Tool{Name: "get_thing", InputSchema: `{"type":"object","properties":{"id":{"type":"string","maxLength":8}},"required":["id"],"additionalProperties":false}`,
		Errors: []ErrorRule{{Status: []string{"500"}, Text: "unused"}, {Status: []string{"409"}, Text: "Taken: pick another."}}}
	s, k, err := NewServer(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: backend.URL, Log: log, Getenv: func(string) string { return "" }},
		func(s *mcp.Server, k *Runtime) {
			k.AddTool(s, tool, func(c *Call) *mcp.CallToolResult {
				r := c.Request(http.MethodGet, "/things/{id}")
				r.Path("id", c.Arg("id"), Simple)
				return c.Do(r)
			})
		})
	if err != nil {
		t.Fatal(err)
	}
	return s, k
}

// The audit record says which built-in messages a result is made of and
// which error rule wrote it, so that tailor report classifies results
// without reading their text; and which session the call belongs to.
func TestAuditClassifiesResults(t *testing.T) {
	var log lockedBuffer
	s, _ := auditServer(t, &log)
	ctx := context.Background()
	cs := connectInMemory(t, s)
	for _, args := range []map[string]any{{"id": "ok"}, {"id": "missing"}, {"id": "taken"}, {"id": "bad"}, {"id": "far-too-long-an-id"}, {"id": 7, "extra": 1}} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_thing", Arguments: args}); err != nil {
			t.Fatal(err)
		}
	}
	recs := log.records(t)
	if len(recs) != 6 {
		t.Fatalf("%d audit records, want 6", len(recs))
	}
	want := []struct {
		messages, invalid string
		rule              any
	}{{"", "", nil}, {`["not_found"]`, "", nil}, {"", "", 1.0}, {`["invalid_argument"]`, "", nil}, {`["arguments_invalid"]`, `["id"]`, nil}, {`["arguments_invalid"]`, `["extra","id"]`, nil}}
	field := func(rec map[string]any, name string) string {
		v, ok := rec[name]
		if !ok {
			return ""
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	for i, w := range want {
		got, invalid := field(recs[i], "messages"), field(recs[i], "invalid_args")
		if got != w.messages || invalid != w.invalid || recs[i]["error_rule"] != w.rule {
			t.Errorf("call %d: messages %s, invalid_args %s, error_rule %v; want %s, %s, %v", i, got, invalid, recs[i]["error_rule"], w.messages, w.invalid, w.rule)
		}
		if _, ok := recs[i]["session"]; ok {
			t.Errorf("call %d: an in-memory session has no id, yet the record names %v", i, recs[i]["session"])
		}
	}
}

// Over streamable HTTP a record names its session by a hash of go-sdk's
// session id (never the id, which would let a reader of the log use the
// session); over stdio by an id drawn when the process starts.
func TestAuditSession(t *testing.T) {
	var log lockedBuffer
	s, _ := auditServer(t, &log)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := context.Background()
	var ids []string
	for range 2 {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_thing", Arguments: map[string]any{"id": "ok"}}); err != nil {
				t.Fatal(err)
			}
		}
		ids = append(ids, cs.ID())
		cs.Close()
	}
	recs := log.records(t)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for i, rec := range recs {
		sum := sha256.Sum256([]byte("audit session\x00" + ids[i/2]))
		if want := hex.EncodeToString(sum[:6]); rec["session"] != want {
			t.Errorf("record %d: session %v, want %s", i, rec["session"], want)
		}
	}
	if recs[0]["session"] == recs[2]["session"] {
		t.Error("two sessions share an id")
	}
	if strings.Contains(log.b.String(), ids[0]) {
		t.Error("the session id itself is in the log")
	}

	// Over stdio: one id for the process's one session.
	var stdioLog lockedBuffer
	s2, k2 := auditServer(t, &stdioLog)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go s2.Run(ctx, stdioTransport(inR, outW, k2))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for range 2 {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_thing", Arguments: map[string]any{"id": "ok"}}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(stdioLog.records(t)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	recs = stdioLog.records(t)
	if len(recs) != 2 || recs[0]["session"] == nil || recs[0]["session"] != recs[1]["session"] || recs[0]["session"] == "" {
		t.Errorf("stdio sessions: %v", recs)
	}
}

// connectInMemory connects a client to s in memory, for the test's time.
func connectInMemory(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
