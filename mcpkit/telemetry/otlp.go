//go:build !tailor_nootel

package telemetry

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// startOTLP starts the OpenTelemetry SDK with OTLP/HTTP exporters for the
// signals asked for; they read the rest of the OTEL_* environment. A build
// with -tags tailor_nootel leaves the SDK and exporters out (nootel.go).
func startOTLP(traces, metrics bool, service, version string) (*Telemetry, error) {
	ctx := context.Background()
	attrs := []attribute.KeyValue{attribute.String("service.name", service)}
	if version != "" {
		attrs = append(attrs, attribute.String("service.version", version))
	}
	// The environment's OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES come
	// last, so they win.
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	t := &Telemetry{}
	if traces {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("the OTLP trace exporter: %w", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		t.TracerProvider = tp
		t.shutdown = append(t.shutdown, tp.Shutdown)
	}
	if metrics {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			t.Shutdown(ctx)
			return nil, fmt.Errorf("the OTLP metric exporter: %w", err)
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		t.MeterProvider = mp
		t.shutdown = append(t.shutdown, mp.Shutdown)
	}
	return t, nil
}
