package mcpkit

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tailormcp/tailor/mcpkit/telemetry"
)

const (
	telSecret = "sekrit-api-key-4711"       // the backend credential
	telArg    = "model-filled-value-9931"   // an argument's value
	telEcho   = "sensitive-body-value-5150" // what the backend answers
)

// telemetryKit serves a read tool, a quote tool and its confirm tool (with
// an approval) on a runtime whose telemetry goes to an in-memory span
// recorder and a manual metric reader, against a loopback backend that
// keeps the traceparent of each request it receives.
type telemetryKit struct {
	spans   *tracetest.SpanRecorder
	metrics *sdkmetric.ManualReader
	now     time.Time
	mu      sync.Mutex
	// received: "METHOD /path" → the traceparent header it came with.
	received []receivedRequest
	session  *mcp.ClientSession
	answers  []string // the person's answers to approval requests, in turn
}

type receivedRequest struct{ line, traceparent, key string }

func newTelemetryKit(t *testing.T) *telemetryKit {
	t.Helper()
	tk := &telemetryKit{spans: tracetest.NewSpanRecorder(), metrics: sdkmetric.NewManualReader(), now: time.Now()}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tk.mu.Lock()
		tk.received = append(tk.received, receivedRequest{r.Method + " " + r.URL.Path, r.Header.Get("traceparent"), r.Header.Get("X-Key")})
		tk.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasPrefix(r.URL.Path, "/missing"):
			w.WriteHeader(404)
			fmt.Fprintf(w, `{"message":"no %s, key %s"}`, telEcho, r.Header.Get("X-Key"))
		case r.Method == http.MethodPost:
			w.WriteHeader(201)
			w.Write([]byte(`{"claim_id":"c1"}`))
		default:
			fmt.Fprintf(w, `{"price":120,"note":%q,"key":%q}`, telEcho, r.Header.Get("X-Key"))
		}
	}))
	t.Cleanup(backend.Close)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tk.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(tk.metrics))
	security := [][]string{{"key"}}
	idSchema := `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`
	read := func(path string) Handler {
		return func(c *Call) *mcp.CallToolResult {
			r := c.Request(http.MethodGet, path)
			r.Path("id", c.Arg("id"), Simple)
			return c.Do(r)
		}
	}
	api := API{Name: "tel", EnvPrefix: "TEL", Schemes: []Scheme{{Name: "key", Kind: APIKey, In: "header", ParamName: "X-Key", Env: "TEL_KEY"}}}
	cfg := Config{BaseURL: backend.URL, Log: io.Discard, Getenv: func(name string) string {
		if name == "TEL_KEY" {
			return telSecret
		}
		return ""
	}, Now: func() time.Time { tk.mu.Lock(); defer tk.mu.Unlock(); return tk.now }, Telemetry: &telemetry.Telemetry{TracerProvider: tp, MeterProvider: mp}}
	s, _, err := NewServer(api, cfg, func(s *mcp.Server, k *Runtime) {
		k.AddTool(s, &Tool{Name: "get_thing", ReadOnly: true, InputSchema: idSchema, Security: security}, read("/things/{id}"))
		k.AddTool(s, &Tool{Name: "get_missing", ReadOnly: true, InputSchema: idSchema, Security: security}, read("/missing/{id}"))
		k.AddTool(s, &Tool{Name: "quote_claim", ReadOnly: true, InputSchema: idSchema, Security: security, Quote: &QuoteSpec{TTLSeconds: 600, ConfirmTool: "claim"}}, read("/prices/{id}"))
		k.AddTool(s, &Tool{Name: "claim", Confirms: "quote_claim", InputSchema: `{"type":"object","properties":{"quote_id":{"type":"string"}},"required":["quote_id"]}`,
			Approval: &Approval{Message: "Claim for {{.quote.body.price}}?"},
			Steps: []Step{{Name: "claim", IdempotencyKey: true, Security: security, Request: func(c *Call, s *Scope) *Request {
				r := c.Request(http.MethodPost, "/claims/{id}")
				r.Path("id", s.Value("{{.quote.args.id}}"), Simple)
				return r
			}}}}, confirmHandler)
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		tk.mu.Lock()
		defer tk.mu.Unlock()
		action := tk.answers[0]
		tk.answers = tk.answers[1:]
		return &mcp.ElicitResult{Action: action}, nil
	}})
	if tk.session, err = client.Connect(ctx, ct, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.session.Close() })
	return tk
}

func (tk *telemetryKit) call(t *testing.T, name string, args map[string]any, meta mcp.Meta) *mcp.CallToolResult {
	t.Helper()
	res, err := tk.session.CallTool(context.Background(), &mcp.CallToolParams{Meta: meta, Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func attrsOf(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value
	}
	return out
}

// A tools/call is a server span continuing the client's trace from
// _meta.traceparent, with the tool, the audit record's outcome and
// message ids, and a client span per backend request naming the route
// template and the status; the backend receives that span's traceparent.
// No argument value, no secret and nothing the backend answered is in any
// span.
func TestTelemetrySpans(t *testing.T) {
	tk := newTelemetryKit(t)
	clientTrace, clientSpan := "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	meta := mcp.Meta{"traceparent": "00-" + clientTrace + "-" + clientSpan + "-01", "tracestate": "vendor=opaque"}
	if res := tk.call(t, "get_thing", map[string]any{"id": telArg}, meta); res.IsError {
		t.Fatalf("get_thing: %s", textOf(res))
	}
	if res := tk.call(t, "get_missing", map[string]any{"id": telArg}, nil); !res.IsError {
		t.Fatalf("get_missing succeeded: %s", textOf(res))
	}
	spans := tk.spans.Ended()
	if len(spans) != 4 {
		t.Fatalf("%d spans, want 4 (two calls, each with one backend request)", len(spans))
	}
	// Children end first.
	req, call := spans[0], spans[1]
	if call.Name() != "tools/call get_thing" || call.SpanKind() != trace.SpanKindServer {
		t.Errorf("call span: %q, kind %v", call.Name(), call.SpanKind())
	}
	if got := call.SpanContext().TraceID().String(); got != clientTrace {
		t.Errorf("the call span's trace is %s, not the client's %s", got, clientTrace)
	}
	if got := call.Parent().SpanID().String(); got != clientSpan || !call.Parent().IsRemote() {
		t.Errorf("the call span's parent is %s (remote %v), not the client's span %s", got, call.Parent().IsRemote(), clientSpan)
	}
	if got := call.Parent().TraceState().String(); got != "vendor=opaque" {
		t.Errorf("tracestate: %q", got)
	}
	a := attrsOf(call)
	if a["gen_ai.tool.name"].AsString() != "get_thing" || a["tailor.outcome"].AsString() != "ok" || a["mcp.method.name"].AsString() != "tools/call" {
		t.Errorf("call span attributes: %v", call.Attributes())
	}
	if req.Name() != "GET /things/{id}" || req.SpanKind() != trace.SpanKindClient || req.Parent().SpanID() != call.SpanContext().SpanID() {
		t.Errorf("request span %q (kind %v) is not a child of the call span", req.Name(), req.SpanKind())
	}
	a = attrsOf(req)
	if a["url.template"].AsString() != "/things/{id}" || a["http.request.method"].AsString() != "GET" || a["http.response.status_code"].AsInt64() != 200 {
		t.Errorf("request span attributes: %v", req.Attributes())
	}
	tk.mu.Lock()
	received := append([]receivedRequest(nil), tk.received...)
	tk.mu.Unlock()
	want := "00-" + clientTrace + "-" + req.SpanContext().SpanID().String() + "-01"
	if len(received) != 2 || received[0].traceparent != want {
		t.Errorf("the backend received %+v; want the request span's traceparent %s", received, want)
	}
	if received[0].key != telSecret {
		t.Errorf("the credential did not reach the backend: %+v", received[0])
	}

	// Without _meta: a trace of its own; the failure's kind as the audit
	// record has it.
	req, call = spans[2], spans[3]
	if call.Parent().IsValid() || call.SpanContext().TraceID().String() == clientTrace {
		t.Errorf("a call without _meta continued a trace: parent %v", call.Parent())
	}
	a = attrsOf(call)
	if a["tailor.outcome"].AsString() != "error" || a["error.type"].AsString() != "tool_error" || strings.Join(a["tailor.messages"].AsStringSlice(), ",") != "not_found" || call.Status().Code.String() != "Error" {
		t.Errorf("failed call span: status %v, attributes %v", call.Status(), call.Attributes())
	}
	if a := attrsOf(req); a["http.response.status_code"].AsInt64() != 404 || a["error.type"].AsString() != "404" {
		t.Errorf("404 request span: %v", req.Attributes())
	}
	if want := "00-" + req.SpanContext().TraceID().String() + "-" + req.SpanContext().SpanID().String() + "-01"; received[1].traceparent != want {
		t.Errorf("the backend received traceparent %q, want %q", received[1].traceparent, want)
	}
	assertNothingSensitive(t, spans)
}

// assertNothingSensitive fails when a span's name, attributes, status or
// events hold an argument's value, the credential, or what the backend
// answered.
func assertNothingSensitive(t *testing.T, spans []sdktrace.ReadOnlySpan) {
	t.Helper()
	for _, s := range spans {
		text := s.Name() + " " + s.Status().Description
		for _, kv := range s.Attributes() {
			text += " " + string(kv.Key) + "=" + kv.Value.Emit()
		}
		for _, e := range s.Events() {
			text += " " + e.Name
			for _, kv := range e.Attributes {
				text += " " + kv.Value.Emit()
			}
		}
		for _, bad := range []string{telArg, telSecret, telEcho} {
			if strings.Contains(text, bad) {
				t.Errorf("span %q holds %q: %s", s.Name(), bad, text)
			}
		}
	}
}

// The metrics after a quote carried out with the person's approval, a
// quote declined, and a quote confirmed after its expiry.
func TestTelemetryMetrics(t *testing.T) {
	tk := newTelemetryKit(t)
	tk.answers = []string{"accept", "decline"}
	quote := func() string {
		res := tk.call(t, "quote_claim", map[string]any{"id": telArg}, nil)
		if res.IsError {
			t.Fatalf("quote: %s", textOf(res))
		}
		id := regexp.MustCompile(`q_[a-z0-9]{10}`).FindString(textOf(res))
		if id == "" {
			t.Fatalf("no quote id in %s", textOf(res))
		}
		return id
	}
	q1 := quote()
	if res := tk.call(t, "claim", map[string]any{"quote_id": q1}, nil); res.IsError {
		t.Fatalf("accepted claim: %s", textOf(res))
	}
	q2 := quote()
	if res := tk.call(t, "claim", map[string]any{"quote_id": q2}, nil); !res.IsError || !strings.Contains(textOf(res), "declined") {
		t.Fatalf("declined claim: %s", textOf(res))
	}
	q3 := quote()
	tk.mu.Lock()
	tk.now = tk.now.Add(11 * time.Minute)
	tk.mu.Unlock()
	if res := tk.call(t, "claim", map[string]any{"quote_id": q3}, nil); !res.IsError || !strings.Contains(textOf(res), "expired") {
		t.Fatalf("expired claim: %s", textOf(res))
	}

	var rm metricdata.ResourceMetrics
	if err := tk.metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}         // "metric{attr=value,…}" → sum
	histograms := map[string]uint64{} // "metric{…}" → count
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					got[m.Name+"{"+p.Attributes.Encoded(attribute.DefaultEncoder())+"}"] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					histograms[m.Name+"{"+p.Attributes.Encoded(attribute.DefaultEncoder())+"}"] += p.Count
				}
			}
		}
	}
	want := map[string]int64{
		"tailor.tool.calls{gen_ai.tool.name=quote_claim,tailor.outcome=ok}": 3,
		// Each approval is two calls: the one that asks, and the one go-sdk
		// makes again with the answer.
		"tailor.tool.calls{gen_ai.tool.name=claim,tailor.outcome=awaiting approval}":                                                            2,
		"tailor.tool.calls{gen_ai.tool.name=claim,tailor.outcome=ok}":                                                                           1,
		"tailor.tool.calls{gen_ai.tool.name=claim,tailor.outcome=error}":                                                                        2,
		"tailor.quotes.created{gen_ai.tool.name=quote_claim}":                                                                                   3,
		"tailor.quotes.consumed{gen_ai.tool.name=claim}":                                                                                        1,
		"tailor.quotes.expired{gen_ai.tool.name=claim}":                                                                                         1,
		"tailor.approvals.asked{gen_ai.tool.name=claim}":                                                                                        2,
		"tailor.approvals.declined{gen_ai.tool.name=claim,tailor.approval=decline}":                                                             1,
		"tailor.backend.requests{gen_ai.tool.name=quote_claim,http.request.method=GET,http.response.status_code=200,url.template=/prices/{id}}": 3,
		"tailor.backend.requests{gen_ai.tool.name=claim,http.request.method=POST,http.response.status_code=201,url.template=/claims/{id}}":      1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d", k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected %s = %d", k, v)
		}
	}
	if n := histograms["tailor.tool.duration{gen_ai.tool.name=claim,tailor.outcome=ok}"]; n != 1 {
		t.Errorf("duration histogram of the accepted claim: %d points (%v)", n, histograms)
	}
	if n := histograms["tailor.tool.duration{gen_ai.tool.name=quote_claim,tailor.outcome=ok}"]; n != 3 {
		t.Errorf("duration histogram of the quotes: %d points (%v)", n, histograms)
	}

	// The confirm's span names its quote and the approval; its step's
	// request span is its child.
	var confirmed sdktrace.ReadOnlySpan
	for _, s := range tk.spans.Ended() {
		if a := attrsOf(s); s.Name() == "tools/call claim" && a["tailor.outcome"].AsString() == "ok" {
			confirmed = s
		}
	}
	if confirmed == nil {
		t.Fatal("no span of the accepted claim")
	}
	if a := attrsOf(confirmed); a["tailor.quote.id"].AsString() != q1 || a["tailor.approval"].AsString() != "accept" {
		t.Errorf("accepted claim span: %v", confirmed.Attributes())
	}
	var step sdktrace.ReadOnlySpan
	for _, s := range tk.spans.Ended() {
		if s.Parent().SpanID() == confirmed.SpanContext().SpanID() {
			step = s
		}
	}
	if step == nil || step.Name() != "POST /claims/{id}" || attrsOf(step)["tailor.step"].AsString() != "claim" {
		t.Errorf("the claim's step span: %v", step)
	}
	assertNothingSensitive(t, tk.spans.Ended())
}

// Without _meta.traceparent, the MCP HTTP request's traceparent header (a
// gateway's) is the parent; _meta wins over it.
func TestTelemetryTraceparentHeader(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tel, err := newInstruments(&telemetry.Telemetry{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))})
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{"Traceparent": {"00-11111111111111111111111111111111-2222222222222222-01"}}
	for _, c := range []struct {
		meta  mcp.Meta
		trace string
	}{
		{nil, "11111111111111111111111111111111"},
		{mcp.Meta{"progressToken": 1}, "11111111111111111111111111111111"},
		{mcp.Meta{"traceparent": "00-33333333333333333333333333333333-4444444444444444-01"}, "33333333333333333333333333333333"},
	} {
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: c.meta, Name: "t"}, Extra: &mcp.RequestExtra{Header: header}}
		_, span := tel.startCall(context.Background(), req, "t")
		span.End()
		if got := span.SpanContext().TraceID().String(); got != c.trace {
			t.Errorf("_meta %v: trace %s, want %s", c.meta, got, c.trace)
		}
	}
}
