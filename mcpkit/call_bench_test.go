package mcpkit

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCall is one tools/call through go-sdk's in-memory transport to
// a read tool whose request goes to a loopback backend: what mcpkit adds
// to a call, with the transport's and the backend's share kept small and
// the same in every variant. Besides ns/op it reports cpu-ns/op, the CPU
// time of the whole process (server, client, backend, collector) per call,
// which other work on the machine moves far less than wall time.
//
// bench/telemetry.sh runs this file's otel=off at an older commit too (it
// copies the file there): the variants that need newer code are added by
// callVariants, in a file of their own (call_otel_bench_test.go).
func BenchmarkCall(b *testing.B) {
	b.Run("otel=off", func(b *testing.B) { benchmarkCall(b, Config{}) })
	for _, v := range callVariants {
		b.Run(v.name, v.run)
	}
}

// callVariants are BenchmarkCall's variants besides otel=off.
var callVariants []struct {
	name string
	run  func(b *testing.B)
}

func benchmarkCall(b *testing.B, cfg Config) { benchmarkCallOver(b, cfg, inMemory) }

// inMemory connects the benchmark's client and server by go-sdk's
// in-memory transport.
func inMemory(*Runtime) (server, client mcp.Transport) {
	return mcp.NewInMemoryTransports()
}

// benchmarkCallOver is BenchmarkCall over the transports connect makes.
func benchmarkCallOver(b *testing.B, cfg Config, connect func(*Runtime) (server, client mcp.Transport)) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"x1","name":"a thing","tags":["a","b"],"price":1200}`))
	}))
	defer backend.Close()
	tool := &Tool{Name: "get_thing", ReadOnly: true, InputSchema: `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`}
	cfg.BaseURL, cfg.Log, cfg.Getenv = backend.URL, io.Discard, func(string) string { return "" }
	s, k, err := NewServer(API{Name: "bench", EnvPrefix: "BENCH"}, cfg, func(s *mcp.Server, k *Runtime) {
		k.AddTool(s, tool, func(c *Call) *mcp.CallToolResult {
			r := c.Request(http.MethodGet, "/things/{id}")
			r.Path("id", c.Arg("id"), Simple)
			return c.Do(r)
		})
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	st, ct := connect(k)
	if _, err := s.Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "get_thing", Arguments: map[string]any{"id": "x1"}}
	b.ReportAllocs()
	b.ResetTimer()
	before := cpuTime()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("call failed: %v %v", err, res)
		}
	}
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
