//go:build !tailor_nootel

package telemetry

import (
	"context"
	"strings"
	"testing"
)

// Only the OTEL_* variables decide, as the SDK's autoexport would, except
// that nothing is set up when neither an endpoint nor an exporter is named;
// what this server cannot do is an error naming the variable.
func TestTelemetryFromEnv(t *testing.T) {
	for _, c := range []struct {
		env             map[string]string
		traces, metrics bool
		err             string
	}{
		{env: map[string]string{}},
		{env: map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_RESOURCE_ATTRIBUTES": "a=b"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, traces: true, metrics: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"}, metrics: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, traces: true},
		{env: map[string]string{"OTEL_METRICS_EXPORTER": "otlp"}, metrics: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_METRICS_EXPORTER": "none"}, traces: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "console"}, err: "OTEL_TRACES_EXPORTER=console: this server exports to OTLP only (console would write to stdout"},
		{env: map[string]string{"OTEL_METRICS_EXPORTER": "prometheus"}, err: "OTEL_METRICS_EXPORTER=prometheus: this server exports to OTLP only"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, err: "OTEL_EXPORTER_OTLP_PROTOCOL=grpc: this server speaks OTLP over HTTP with protobuf only"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf", "OTEL_METRICS_EXPORTER": "none"}, traces: true},
	} {
		tel, err := fromEnv(func(name string) string { return c.env[name] }, "svc", "1")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.env, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", c.env, err)
			continue
		}
		if tel == nil {
			if c.traces || c.metrics {
				t.Errorf("%v: nothing set up", c.env)
			}
			continue
		}
		if (tel.TracerProvider != nil) != c.traces || (tel.MeterProvider != nil) != c.metrics {
			t.Errorf("%v: traces %v, metrics %v; want %v, %v", c.env, tel.TracerProvider != nil, tel.MeterProvider != nil, c.traces, c.metrics)
		}
		tel.Shutdown(context.Background())
	}
}
