package mcpkit

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tailormcp/tailor/mcpkit/telemetry"
)

// otel=on: the SDK as telemetry.FromEnv sets it up (a batching span
// processor, a metric reader), with an exporter that drops what it is
// given: what recording costs a call, without the network.
func init() {
	callVariants = append(callVariants, struct {
		name string
		run  func(b *testing.B)
	}{"otel=on", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer tp.Shutdown(context.Background())
		benchmarkCall(b, Config{Telemetry: &telemetry.Telemetry{TracerProvider: tp, MeterProvider: mp}})
	}})
}
