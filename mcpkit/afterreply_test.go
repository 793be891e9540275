package mcpkit

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// events records, in one order, the lines written to stdout and to the
// log, so that a test can tell which came first.
type events struct {
	mu    sync.Mutex
	lines []string
}

func (e *events) writer(prefix string, next io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		e.mu.Lock()
		for _, l := range nonEmptyLines(string(p)) {
			e.lines = append(e.lines, prefix+l)
		}
		e.mu.Unlock()
		if next == nil {
			return len(p), nil
		}
		return next.Write(p)
	})
}

func (e *events) snapshot() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.lines...)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// Over stdio a call's audit record is written after its result, off the
// path the client waits on (afterReply), and none is lost: every call
// (a success, a backend error, refused arguments) has exactly one record,
// written after its own result, in the order of the calls, with the
// call's own time in "ms"; the records of calls still queued when stdin
// ends are written when the session closes. (The client may read a result
// and send its next call before the record is out: the record follows
// the result, it does not hold the next call back.)
func TestStdioAuditAfterResult(t *testing.T) {
	var ev events
	s, k := auditServer(t, ev.writer("log ", nil))
	args := []string{"ok1", "missing", "bad", "toolongvalue", "ok2"}
	lines := stdioCalls(t, s, k, &ev, args)
	last := -1
	for i, id := range args {
		result, record := -1, -1
		for j, l := range lines {
			if strings.HasPrefix(l, "out ") && strings.Contains(l, fmt.Sprintf(`"id":%d,`, 10+i)) {
				result = j
			}
			if strings.HasPrefix(l, "log ") && strings.Contains(l, `"msg":"audit"`) && strings.Contains(l, fmt.Sprintf(`"args":{"id":%q}`, id)) {
				if record >= 0 {
					t.Errorf("call %s has two audit records", id)
				}
				record = j
				var r struct {
					Millis  *int64 `json:"ms"`
					Outcome string `json:"outcome"`
				}
				if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "log ")), &r); err != nil || r.Millis == nil || r.Outcome == "" {
					t.Errorf("call %s: audit record %s: %v", id, l, err)
				}
			}
		}
		if result < 0 || record < 0 {
			t.Fatalf("call %s: result at %d, audit record at %d, in\n%s", id, result, record, strings.Join(lines, "\n"))
		}
		if record < result {
			t.Errorf("call %s: its audit record came before its result:\n%s", id, strings.Join(lines, "\n"))
		}
		if record < last {
			t.Errorf("call %s: its audit record came before an earlier call's:\n%s", id, strings.Join(lines, "\n"))
		}
		last = record
	}
}

// stdioCalls serves s over stdio, calls get_thing once for each id, one
// after another, ends stdin, and returns the lines written to stdout and
// to the log, in order (ev records them).
func stdioCalls(t *testing.T, s *mcp.Server, k *Runtime, ev *events, ids []string) []string {
	t.Helper()
	inW, exchange, done := runStdio(t, s, k, func(w io.Writer) io.Writer { return ev.writer("out ", w) })
	exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		a := exchange(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_thing","arguments":{"id":%q}}}`, 10+i, id))
		if !strings.Contains(a, fmt.Sprintf(`"id":%d`, 10+i)) {
			t.Fatalf("call %d answered %s", 10+i, a)
		}
	}
	inW.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end with stdin")
	}
	return ev.snapshot()
}

// The warning that an answer did not fit the tool's output schema is, like
// the audit line, written after the call's result over stdio, before the
// call's audit line; the same misfit on the next calls is held back
// (TestMisfitLoggedOncePerInterval).
func TestStdioMisfitLoggedAfterResult(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"count":"not a number","name":"x"}`)
	}))
	defer backend.Close()
	var ev events
	tool := &Tool{Name: "get_thing", InputSchema: `{"type":"object"}`,
		OutputSchema: `{"type":"object","properties":{"count":{"type":"integer"},"name":{"type":"string"}}}`}
	s, k, err := NewServer(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: backend.URL, Log: ev.writer("log ", nil), Getenv: func(string) string { return "" }},
		func(s *mcp.Server, k *Runtime) {
			k.AddTool(s, tool, func(c *Call) *mcp.CallToolResult { return c.Do(c.Request(http.MethodGet, "/thing")) })
		})
	if err != nil {
		t.Fatal(err)
	}
	lines := stdioCalls(t, s, k, &ev, []string{"a", "b", "c"})
	var results, misfits, audits []int
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "out ") && strings.Contains(l, `"structuredContent":{"name":"x"}`):
			results = append(results, i)
		case strings.Contains(l, "does not match the tool's output schema"):
			misfits = append(misfits, i)
		case strings.Contains(l, `"msg":"audit"`):
			audits = append(audits, i)
		}
	}
	if len(results) != 3 || len(misfits) != 1 || len(audits) != 3 {
		t.Fatalf("%d results, %d warnings, %d audit lines, want 3, 1 and 3:\n%s", len(results), len(misfits), len(audits), strings.Join(lines, "\n"))
	}
	if !(results[0] < misfits[0] && misfits[0] < audits[0]) {
		t.Errorf("result at %d, warning at %d, audit line at %d; want them in that order:\n%s", results[0], misfits[0], audits[0], strings.Join(lines, "\n"))
	}
}

// afterReply: queued work runs when the next message is written, in the
// order it was queued; once the connection is closed, what was queued
// runs and later work runs at once; without a queue (HTTP) work runs at
// once.
func TestAfterReply(t *testing.T) {
	var got []string
	note := func(s string) func() { return func() { got = append(got, s) } }
	var none *afterReply
	none.do(note("direct"))
	none.run()
	none.close()
	q := &afterReply{}
	q.do(note("a"))
	q.do(note("b"))
	if len(got) != 1 {
		t.Fatalf("queued work ran before the reply: %q", got)
	}
	q.run()
	q.run()
	q.do(note("c"))
	q.close()
	q.do(note("d"))
	if want := "direct a b c d"; strings.Join(got, " ") != want {
		t.Fatalf("ran %q, want %q", strings.Join(got, " "), want)
	}
}
