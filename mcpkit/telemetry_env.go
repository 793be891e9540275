package mcpkit

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"

	"github.com/tailormcp/tailor/mcpkit/internal/loglimit"
)

// TelemetryFromEnv sets up OTLP export (http/protobuf) as the standard
// OTEL_* environment variables say, and returns nil when they ask for
// nothing: with OTEL_SDK_DISABLED=true, or when neither an OTLP endpoint
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT)
// nor an exporter (OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER) is set.
// OTEL_{TRACES,METRICS}_EXPORTER=none turns one signal off. Everything else
// (headers, timeouts, TLS, compression, sampler, batch and export
// intervals, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) is read by the
// OpenTelemetry SDK and exporters themselves; service.name defaults to
// service. An exporter or protocol this server does not have (console
// would write to stdout, which carries the protocol over stdio) is an
// error naming the variable.
//
// Nothing is sent until a call is made; exporters' errors reach the
// server's log (stderr), at most one line per 30 s (Config.Telemetry).
func TelemetryFromEnv(service, version string) (*Telemetry, error) {
	return telemetryFromEnv(os.Getenv, service, version)
}

func telemetryFromEnv(getenv func(string) string, service, version string) (*Telemetry, error) {
	traces, metrics, err := telemetryWanted(getenv)
	if err != nil || !traces && !metrics {
		return nil, err
	}
	return startOTLP(traces, metrics, service, version)
}

// telemetryWanted reads which signals the environment asks to export.
func telemetryWanted(getenv func(string) string) (traces, metrics bool, err error) {
	if disabled := strings.TrimSpace(getenv("OTEL_SDK_DISABLED")); strings.EqualFold(disabled, "true") {
		return false, false, nil
	}
	if traces, err = exporterWanted(getenv, "TRACES"); err != nil {
		return false, false, err
	}
	metrics, err = exporterWanted(getenv, "METRICS")
	return traces, metrics, err
}

// exporterWanted reads OTEL_<SIGNAL>_EXPORTER: otlp (on), none (off), or,
// when unset, on if an OTLP endpoint is configured for the signal; and
// checks that the OTLP protocol, if named, is the one this server speaks.
func exporterWanted(getenv func(string) string, signal string) (bool, error) {
	name := "OTEL_" + signal + "_EXPORTER"
	on := false
	if v := strings.TrimSpace(getenv(name)); v != "" {
		for _, e := range strings.Split(v, ",") {
			switch e = strings.TrimSpace(e); e {
			case "otlp":
				on = true
			case "none", "":
			case "console":
				return false, fmt.Errorf("%s=%s: this server exports to OTLP only (console would write to stdout, which carries the MCP protocol over stdio); use otlp or none", name, v)
			default:
				return false, fmt.Errorf("%s=%s: this server exports to OTLP only; use otlp or none", name, v)
			}
		}
		if !on {
			return false, nil
		}
	} else {
		on = getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") != ""
	}
	if !on {
		return false, nil
	}
	for _, p := range []string{"OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if v := strings.TrimSpace(getenv(p)); v != "" {
			if v != "http/protobuf" {
				return false, fmt.Errorf("%s=%s: this server speaks OTLP over HTTP with protobuf only; set http/protobuf (a collector's port 4318) or leave it unset", p, v)
			}
			break
		}
	}
	return true, nil
}

// reportTelemetryErrors sends OpenTelemetry's errors (an exporter that
// cannot reach its collector, every few seconds) and its own log to the
// server's log on stderr, redacted, at most one line per 30 s. The SDK
// would print them with the standard logger otherwise; the exporters never
// write to stdout.
func (k *Runtime) reportTelemetryErrors() {
	limit := &loglimit.Limiter{Every: 30 * time.Second}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		if n, ok := limit.Allow(); ok {
			k.log.Warn("telemetry not exported", "error", k.redact(err.Error()), "suppressed_since_last", n)
		}
	}))
	otel.SetLogger(logr.FromSlogHandler(k.log.Handler()))
}

// flushTelemetry exports what is still buffered when the server exits,
// within 5 s.
func (k *Runtime) flushTelemetry() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := k.cfg.Telemetry.Shutdown(ctx); err != nil {
		k.log.Warn("telemetry not exported at exit", "error", k.redact(err.Error()))
	}
}
