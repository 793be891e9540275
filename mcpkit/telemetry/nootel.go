//go:build tailor_nootel

package telemetry

import "errors"

// startOTLP, in a server built with -tags tailor_nootel (without the
// OpenTelemetry SDK and its OTLP exporters: about a quarter of the
// binary), refuses an environment that asks for telemetry, so that an
// operator is not left wondering where the traces went.
func startOTLP(traces, metrics bool, service, version string) (*Telemetry, error) {
	return nil, errors.New("this server was built without telemetry (-tags tailor_nootel), but the OTEL_* environment asks for it: unset OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_*_EXPORTER, or build it without the tag")
}
