// Package telemetry says where a server's traces and metrics go: the
// OpenTelemetry providers an embedding program sets in mcpkit.Config, or
// the OTLP/HTTP exporters FromEnv starts from the standard OTEL_*
// variables. What a call records is mcpkit's business.
package telemetry

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Telemetry is where a server's traces and metrics go: OpenTelemetry
// providers (Config.Telemetry). Run sets it from the standard OTEL_*
// environment variables (FromEnv); without them it is nil, and
// a call costs one nil check more than without telemetry.
//
// What is recorded is derived from what the audit record holds, at one
// place, when a call ends (mcpkit's telemetry.go): never an argument's value,
// a filled path, a header, a body or an error's text; every string passes
// the call's redactor.
type Telemetry struct {
	// TracerProvider receives a span per tools/call and a child span per
	// backend request; nil: no traces.
	TracerProvider trace.TracerProvider
	// MeterProvider receives the metrics (see newTelemetry); nil: none.
	MeterProvider metric.MeterProvider

	// shutdown flushes and stops what FromEnv started.
	shutdown []func(context.Context) error
}

// Shutdown flushes what is buffered and stops the exporters that
// FromEnv started; providers set by hand are left alone.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	for _, f := range t.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}
