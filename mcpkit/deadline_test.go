package mcpkit

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Contexts on the shared timer end as context.WithTimeout's do: each at
// its own deadline and not before, with context.DeadlineExceeded (as Err
// and as Cause, which net/http reports), or with their parent; released
// early, they end with Canceled. Requests one after another with one
// timeout set the timer once, not once per request: that is the point.
func TestRequestDeadlines(t *testing.T) {
	var ds requestDeadlines
	start := time.Now()
	short, releaseShort := ds.withTimeout(context.Background(), 60*time.Millisecond)
	defer releaseShort()
	long, releaseLong := ds.withTimeout(context.Background(), 150*time.Millisecond)
	defer releaseLong()
	if d, ok := short.Deadline(); !ok || d.Before(start.Add(60*time.Millisecond)) {
		t.Fatalf("deadline %v %v", d, ok)
	}
	<-short.Done()
	if el := time.Since(start); el < 60*time.Millisecond {
		t.Fatalf("ended after %v, before its deadline", el)
	}
	if short.Err() != context.DeadlineExceeded || !errors.Is(context.Cause(short), context.DeadlineExceeded) {
		t.Fatalf("Err %v, Cause %v", short.Err(), context.Cause(short))
	}
	// A context derived from it (as net/http derives one) ends with it.
	child, cancelChild := context.WithCancel(short)
	defer cancelChild()
	if !errors.Is(context.Cause(child), context.DeadlineExceeded) {
		t.Fatalf("child's cause %v", context.Cause(child))
	}
	if long.Err() != nil {
		t.Fatal("the later deadline ended with the earlier one")
	}
	<-long.Done()
	if el := time.Since(start); el < 150*time.Millisecond || long.Err() != context.DeadlineExceeded {
		t.Fatalf("ended after %v with %v", el, long.Err())
	}

	parent, cancelParent := context.WithCancel(context.Background())
	fromParent, release := ds.withTimeout(parent, time.Hour)
	cancelParent()
	<-fromParent.Done()
	if fromParent.Err() != context.Canceled {
		t.Fatalf("ended with its parent: %v", fromParent.Err())
	}
	release()

	ds.mu.Lock()
	ds.arms = 0
	ds.mu.Unlock()
	for i := 0; i < 100; i++ {
		ctx, release := ds.withTimeout(context.Background(), time.Minute)
		release()
		if ctx.Err() != context.Canceled {
			t.Fatalf("released: %v", ctx.Err())
		}
	}
	ds.mu.Lock()
	arms, open := ds.arms, len(ds.open)
	ds.mu.Unlock()
	if arms != 1 || open != 0 {
		t.Fatalf("100 requests set the timer %d times and left %d open, want 1 and 0", arms, open)
	}
}

// A backend that does not answer within the timeout: the call ends at the
// timeout with the result that says so, the shared timer cutting the
// request off.
func TestBackendTimeout(t *testing.T) {
	hang := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer backend.Close()
	defer close(hang)
	tool := &Tool{Name: "get_thing", InputSchema: `{"type":"object"}`}
	cfg := Config{BaseURL: backend.URL, Log: io.Discard, Getenv: func(string) string { return "" }, Timeout: 150 * time.Millisecond}
	s, _, err := NewServer(API{Name: "x", EnvPrefix: "X"}, cfg, func(s *mcp.Server, k *Runtime) {
		k.AddTool(s, tool, func(c *Call) *mcp.CallToolResult { return c.Do(c.Request(http.MethodPost, "/things")) })
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs := connectInMemory(t, s)
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_thing", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	if !res.IsError || !strings.Contains(textOf(res), "did not answer within 150ms") {
		t.Fatalf("result: %s", textOf(res))
	}
	if el < 150*time.Millisecond || el > 5*time.Second {
		t.Fatalf("the call ended after %v, timeout 150ms", el)
	}
}
