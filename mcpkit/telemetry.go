package mcpkit

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/tailormcp/tailor/mcpkit/internal/loglimit"
	"github.com/tailormcp/tailor/mcpkit/telemetry"
)

// instrumentationName names mcpkit's tracer and meter.
const instrumentationName = "github.com/tailormcp/tailor/mcpkit"

// telemetry is a runtime's instruments.
type instruments struct {
	tracer trace.Tracer
	// propagator is W3C trace context (traceparent, tracestate): read from
	// a tools/call's _meta (else the MCP HTTP request's headers), written
	// into each backend request.
	propagator propagation.TextMapPropagator

	calls             metric.Int64Counter
	duration          metric.Float64Histogram
	backend           metric.Int64Counter
	quotesCreated     metric.Int64Counter
	quotesConsumed    metric.Int64Counter
	quotesExpired     metric.Int64Counter
	approvalsAsked    metric.Int64Counter
	approvalsDeclined metric.Int64Counter
}

// newInstruments makes the instruments; nil when t is.
func newInstruments(t *telemetry.Telemetry) (*instruments, error) {
	if t == nil || (t.TracerProvider == nil && t.MeterProvider == nil) {
		return nil, nil
	}
	tp, mp := t.TracerProvider, t.MeterProvider
	if tp == nil {
		tp = trace.NewNoopTracerProvider()
	}
	tel := &instruments{tracer: tp.Tracer(instrumentationName), propagator: propagation.TraceContext{}}
	if mp == nil {
		return tel, nil
	}
	m := mp.Meter(instrumentationName)
	var errs []error
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	tel.calls = counter("tailor.tool.calls", "{call}", "tools/call handled, by tool and outcome (the audit record's)")
	tel.backend = counter("tailor.backend.requests", "{request}", "requests sent to the backend, by tool, method, route template and status code (the last attempt's)")
	tel.quotesCreated = counter("tailor.quotes.created", "{quote}", "quotes stored by quote tools")
	tel.quotesConsumed = counter("tailor.quotes.consumed", "{quote}", "quotes carried out to the end and used up by their confirm tool")
	tel.quotesExpired = counter("tailor.quotes.expired", "{quote}", "confirm calls refused because their quote had expired")
	tel.approvalsAsked = counter("tailor.approvals.asked", "{request}", "approval requests sent to the person")
	tel.approvalsDeclined = counter("tailor.approvals.declined", "{answer}", "approval requests the person declined or dismissed")
	var err error
	tel.duration, err = m.Float64Histogram("tailor.tool.duration", metric.WithUnit("s"), metric.WithDescription("time to handle a tools/call, by tool and outcome"),
		metric.WithExplicitBucketBoundaries(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
	errs = append(errs, err)
	return tel, errors.Join(errs...)
}

// Attribute keys: OpenTelemetry's semantic conventions where they have
// one (MCP, GenAI tool, HTTP client), tailor.* for the audit record's own.
const (
	keyMCPMethod     = attribute.Key("mcp.method.name")
	keyToolName      = attribute.Key("gen_ai.tool.name")
	keyOperation     = attribute.Key("gen_ai.operation.name")
	keyErrorType     = attribute.Key("error.type")
	keyOutcome       = attribute.Key("tailor.outcome")
	keyMessages      = attribute.Key("tailor.messages")
	keyErrorRule     = attribute.Key("tailor.error_rule")
	keyQuoteID       = attribute.Key("tailor.quote.id")
	keyApproval      = attribute.Key("tailor.approval")
	keyInterrupted   = attribute.Key("tailor.interrupted")
	keyStep          = attribute.Key("tailor.step")
	keyMethod        = attribute.Key("http.request.method")
	keyRoute         = attribute.Key("url.template")
	keyStatus        = attribute.Key("http.response.status_code")
	keyResendCount   = attribute.Key("http.request.resend_count")
	keyServerAddress = attribute.Key("server.address")
	keyServerPort    = attribute.Key("server.port")
)

// metaCarrier reads the W3C trace context of a request's _meta
// (_meta.traceparent, _meta.tracestate: the MCP convention).
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}
func (m metaCarrier) Set(key, value string) { m[key] = value }
func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// startCall starts the span of a tools/call of the tool named name
// (redacted): a child of the trace context the client put in _meta, else
// of the MCP HTTP request's traceparent header (a gateway's), else a new
// trace.
func (tel *instruments) startCall(ctx context.Context, req *mcp.CallToolRequest, name string) (context.Context, trace.Span) {
	var carrier propagation.TextMapCarrier
	if req != nil && req.Params != nil && req.Params.Meta != nil {
		if m := metaCarrier(req.Params.Meta); m.Get("traceparent") != "" {
			carrier = m
		}
	}
	if carrier == nil && req != nil && req.Extra != nil && req.Extra.Header != nil {
		carrier = propagation.HeaderCarrier(req.Extra.Header)
	}
	if carrier != nil {
		ctx = tel.propagator.Extract(ctx, carrier)
	}
	return tel.tracer.Start(ctx, "tools/call "+name, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(keyMCPMethod.String("tools/call"), keyOperation.String("execute_tool"), keyToolName.String(name)))
}

// record ends a call's span and counts it: the one place telemetry reads a
// finished call, from what its audit record holds. c is nil when the call
// never started (a panic before its arguments were read); tool is the
// tool's name, redacted.
func (tel *instruments) record(span trace.Span, c *Call, res *mcp.CallToolResult, tool string, elapsed time.Duration) {
	outcome, interrupted := "no result", ""
	var a *audit
	red := func(s string) string { return s }
	if c != nil {
		outcome, interrupted = c.outcome(res)
		a = &c.audit
		red = c.redactor().String
	}
	attrs := []attribute.KeyValue{keyOutcome.String(outcome)}
	if a != nil {
		if len(a.Said) > 0 {
			ids := make([]string, len(a.Said))
			for i, id := range a.Said {
				ids[i] = red(id)
			}
			attrs = append(attrs, keyMessages.StringSlice(ids))
		}
		if a.Rule > 0 {
			attrs = append(attrs, keyErrorRule.Int(a.Rule-1))
		}
		if id := c.quoteID; a.Quote != nil || id != "" {
			if a.Quote != nil {
				id = a.Quote.ID
			}
			attrs = append(attrs, keyQuoteID.String(red(id)))
		}
		if a.Approval != "" {
			attrs = append(attrs, keyApproval.String(red(a.Approval)))
		}
	}
	if interrupted != "" {
		attrs = append(attrs, keyInterrupted.String(interrupted))
	}
	failed := outcome == "error" || outcome == "unknown" || outcome == "no result"
	if failed {
		// The MCP conventions' value for a result with isError; what went
		// wrong is in tailor.messages, as in the audit record.
		attrs = append(attrs, keyErrorType.String("tool_error"))
		span.SetStatus(codes.Error, outcome)
	}
	span.SetAttributes(attrs...)
	span.End()

	if tel.calls == nil {
		return
	}
	ctx := context.Background()
	byCall := metric.WithAttributes(keyToolName.String(tool), keyOutcome.String(outcome))
	tel.calls.Add(ctx, 1, byCall)
	tel.duration.Record(ctx, elapsed.Seconds(), byCall)
	if a == nil {
		return
	}
	byTool := metric.WithAttributes(keyToolName.String(tool))
	for _, st := range a.Steps {
		attrs := []attribute.KeyValue{keyToolName.String(tool), keyMethod.String(st.Method), keyRoute.String(red(st.Path))}
		if st.Status > 0 {
			attrs = append(attrs, keyStatus.Int(st.Status))
		} else {
			attrs = append(attrs, keyErrorType.String("no response"))
		}
		tel.backend.Add(ctx, 1, metric.WithAttributes(attrs...))
	}
	if a.Quote != nil && c.tool.Quote != nil {
		tel.quotesCreated.Add(ctx, 1, byTool)
	}
	if a.Consumed {
		tel.quotesConsumed.Add(ctx, 1, byTool)
	}
	for _, id := range a.Said {
		if id == "quote_expired" {
			tel.quotesExpired.Add(ctx, 1, byTool)
		}
	}
	switch a.Approval {
	case "asked":
		tel.approvalsAsked.Add(ctx, 1, byTool)
	case "decline", "cancel":
		tel.approvalsDeclined.Add(ctx, 1, metric.WithAttributes(keyToolName.String(tool), keyApproval.String(a.Approval)))
	}
}

// startRequest starts the span of one attempt of a backend request and
// writes its trace context into the request's headers. The span names the
// route template, never the filled path: the values the model filled in
// may be sensitive.
func (tel *instruments) startRequest(c *Call, r *Request, req *http.Request, attempt int) (context.Context, trace.Span) {
	red := c.redactor().String
	route := red(r.template)
	attrs := []attribute.KeyValue{keyMethod.String(r.Method), keyRoute.String(route), keyServerAddress.String(req.URL.Hostname())}
	if p := req.URL.Port(); p != "" {
		if n, err := strconv.Atoi(p); err == nil {
			attrs = append(attrs, keyServerPort.Int(n))
		}
	}
	if c.step != "" {
		attrs = append(attrs, keyStep.String(red(c.step)))
	}
	if attempt > 0 {
		attrs = append(attrs, keyResendCount.Int(attempt))
	}
	ctx, span := tel.tracer.Start(req.Context(), r.Method+" "+route, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	tel.propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	return ctx, span
}

// endRequest ends a backend request's span with its status code, or the
// kind of failure (never the error's text, which holds the URL).
func endRequest(span trace.Span, resp response) {
	switch {
	case resp.err != nil:
		kind := "connection"
		switch {
		case isTimeout(resp.err):
			kind = "timeout"
		case errors.Is(resp.err, context.Canceled):
			kind = "cancelled"
		}
		span.SetAttributes(keyErrorType.String(kind))
		span.SetStatus(codes.Error, kind)
	case resp.status >= 400:
		span.SetAttributes(keyStatus.Int(resp.status), keyErrorType.String(strconv.Itoa(resp.status)))
		span.SetStatus(codes.Error, "")
	default:
		span.SetAttributes(keyStatus.Int(resp.status))
	}
	span.End()
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
