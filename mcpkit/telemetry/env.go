package telemetry

import (
	"fmt"
	"os"
	"strings"
)

// FromEnv sets up OTLP export (http/protobuf) as the standard
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
func FromEnv(service, version string) (*Telemetry, error) {
	return fromEnv(os.Getenv, service, version)
}

func fromEnv(getenv func(string) string, service, version string) (*Telemetry, error) {
	traces, metrics, err := wanted(getenv)
	if err != nil || !traces && !metrics {
		return nil, err
	}
	return startOTLP(traces, metrics, service, version)
}

// wanted reads which signals the environment asks to export.
func wanted(getenv func(string) string) (traces, metrics bool, err error) {
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
