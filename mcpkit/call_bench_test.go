package mcpkit

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkCall is one tools/call through go-sdk's in-memory transport to
// a read tool whose request goes to a loopback backend: what mcpkit adds
// to a call, with the transport's and the backend's share kept small and
// the same in every variant (make bench compares the variants, and this
// commit's otel=off with another commit's).
func BenchmarkCall(b *testing.B) {
	b.Run("otel=off", func(b *testing.B) { benchmarkCall(b, Config{}) })
	// The SDK as TelemetryFromEnv sets it up (a batching span processor, a
	// metric reader), with an exporter that drops what it is given: what
	// recording costs a call, without the network.
	b.Run("otel=on", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer tp.Shutdown(context.Background())
		benchmarkCall(b, Config{Telemetry: &Telemetry{TracerProvider: tp, MeterProvider: mp}})
	})
}

func benchmarkCall(b *testing.B, cfg Config) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"x1","name":"a thing","tags":["a","b"],"price":1200}`))
	}))
	defer backend.Close()
	tool := &Tool{Name: "get_thing", ReadOnly: true, InputSchema: `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`}
	cfg.BaseURL, cfg.Log, cfg.Getenv = backend.URL, io.Discard, func(string) string { return "" }
	s, _, err := NewServer(API{Name: "bench", EnvPrefix: "BENCH"}, cfg, func(s *mcp.Server, k *Runtime) {
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
	st, ct := mcp.NewInMemoryTransports()
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
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("call failed: %v %v", err, res)
		}
	}
}
