package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
	"github.com/tailormcp/tailor/internal/testkit"
)

// otlpReceiver is a loopback OTLP/HTTP collector: it decodes what the
// server exports (protobuf, gzip or not) with the OTLP proto types.
type otlpReceiver struct {
	url     string
	mu      sync.Mutex
	spans   []*tracepb.Span
	service []string // service.name of each resource that sent spans
	metrics []*metricpb.Metric
	// status answers every export (200 unless set).
	status int
}

func newOTLPReceiver(t *testing.T, status int) *otlpReceiver {
	t.Helper()
	r := &otlpReceiver{status: status}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			gz, err := gzip.NewReader(req.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = gz
		}
		b, err := io.ReadAll(body)
		if err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "not protobuf", 415)
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.status != 0 {
			http.Error(w, "refused by the test", r.status)
			return
		}
		switch req.URL.Path {
		case "/v1/traces":
			var m coltracepb.ExportTraceServiceRequest
			if err := proto.Unmarshal(b, &m); err != nil {
				t.Errorf("traces: %v", err)
			}
			for _, rs := range m.ResourceSpans {
				for _, kv := range rs.GetResource().GetAttributes() {
					if kv.Key == "service.name" {
						r.service = append(r.service, kv.GetValue().GetStringValue())
					}
				}
				for _, ss := range rs.ScopeSpans {
					r.spans = append(r.spans, ss.Spans...)
				}
			}
		case "/v1/metrics":
			var m colmetricpb.ExportMetricsServiceRequest
			if err := proto.Unmarshal(b, &m); err != nil {
				t.Errorf("metrics: %v", err)
			}
			for _, rm := range m.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					r.metrics = append(r.metrics, sm.Metrics...)
				}
			}
		default:
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(nil)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

// span returns the first span named name, waiting up to 10 s for it.
func (r *otlpReceiver) span(t *testing.T, name string) *tracepb.Span {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r.mu.Lock()
		for _, s := range r.spans {
			if s.Name == name {
				r.mu.Unlock()
				return s
			}
		}
		names := []string{}
		for _, s := range r.spans {
			names = append(names, s.Name)
		}
		r.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no span %q received; got %v", name, names)
		}
	}
}

// sum is the latest value of a cumulative counter's points whose
// attributes include want, waiting up to 10 s for it to reach at least min.
func (r *otlpReceiver) sum(t *testing.T, name string, want map[string]string, min int64) int64 {
	t.Helper()
	var got int64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got = 0
		r.mu.Lock()
		for _, m := range r.metrics {
			if m.Name != name || m.GetSum() == nil {
				continue
			}
			var last int64
			for _, p := range m.GetSum().DataPoints {
				if hasAttrs(p.Attributes, want) {
					last += p.GetAsInt()
				}
			}
			got = last // cumulative: the latest export holds the total
		}
		r.mu.Unlock()
		if got >= min || time.Now().After(deadline) {
			return got
		}
	}
}

func hasAttrs(kvs []*commonpb.KeyValue, want map[string]string) bool {
	n := 0
	for _, kv := range kvs {
		if v, ok := want[kv.Key]; ok && kv.GetValue().GetStringValue() == v {
			n++
		}
	}
	return n == len(want)
}

func attr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

func hexID(b []byte) string { return hex.EncodeToString(b) }

// spanText is every string a span carries (name, status, attribute
// values, events and links), one per line.
func spanText(s *tracepb.Span) string {
	var out []string
	var value func(v *commonpb.AnyValue)
	attrs := func(kvs []*commonpb.KeyValue) {
		for _, kv := range kvs {
			out = append(out, kv.Key)
			value(kv.Value)
		}
	}
	value = func(v *commonpb.AnyValue) {
		switch {
		case v == nil:
		case v.GetArrayValue() != nil:
			for _, e := range v.GetArrayValue().Values {
				value(e)
			}
		case v.GetKvlistValue() != nil:
			attrs(v.GetKvlistValue().Values)
		case v.GetBytesValue() != nil:
			out = append(out, string(v.GetBytesValue()))
		default:
			out = append(out, v.GetStringValue())
		}
	}
	out = append(out, s.Name, s.TraceState, s.GetStatus().GetMessage())
	attrs(s.Attributes)
	for _, e := range s.Events {
		out = append(out, e.Name)
		attrs(e.Attributes)
	}
	for _, l := range s.Links {
		out = append(out, l.TraceState)
		attrs(l.Attributes)
	}
	return strings.Join(out, "\n")
}

// TestTelemetryExport: a server configured by nothing but
// OTEL_EXPORTER_OTLP_ENDPOINT exports the story's spans and metrics over
// OTLP/HTTP to a collector (decoded here with the OTLP proto types): the
// client's _meta.traceparent continues through the tool to the backend,
// which receives the request span's traceparent; no argument value is in
// a span; quotes and approvals are counted. Over stdio, stdout carries
// only the protocol meanwhile (the client reads it). Generated and served.
func TestTelemetryExport(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rx := newOTLPReceiver(t, 0)
			shop := backend.New(func() time.Time { return time.Date(2026, 10, 5, 14, 0, 0, 0, time.UTC) })
			var mu sync.Mutex
			traceparents := map[string]string{} // "METHOD path" → traceparent
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				traceparents[r.Method+" "+r.URL.Path] = r.Header.Get("traceparent")
				mu.Unlock()
				shop.Handler().ServeHTTP(w, r)
			}))
			t.Cleanup(api.Close)
			bin, pre := sv.command(t)
			env := []string{"BACKOFFICE_BASE_URL=" + api.URL, "BACKOFFICE_CUSTOMER_ID=" + backend.Wang,
				"OTEL_EXPORTER_OTLP_ENDPOINT=" + rx.url, "OTEL_BSP_SCHEDULE_DELAY=100", "OTEL_METRIC_EXPORT_INTERVAL=200",
				"OTEL_SERVICE_NAME=", "OTEL_TRACES_EXPORTER=", "OTEL_METRICS_EXPORTER=", "OTEL_SDK_DISABLED="}
			srv := testkit.StartStdioClient(t, bin, env, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept"}, nil
			}}, pre...)

			clientTrace, clientSpan := "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
			res := callParams(t, srv, &mcp.CallToolParams{Name: "get_order", Arguments: map[string]any{"order_id": "5531"},
				Meta: mcp.Meta{"traceparent": "00-" + clientTrace + "-" + clientSpan + "-01"}})
			if res.IsError {
				t.Fatalf("get_order: %s", testkit.Text(res))
			}
			res = srv.Call(t, "quote_refund", map[string]any{"order_id": "5531", "line_item_ids": []any{"li_2"}})
			q := regexp.MustCompile(`q_[a-z0-9]{10}`).FindString(testkit.Text(res))
			if res.IsError || q == "" {
				t.Fatalf("quote_refund: %s", testkit.Text(res))
			}
			if res := srv.Call(t, "refund_items", map[string]any{"quote_id": q}); res.IsError {
				t.Fatalf("refund_items: %s", testkit.Text(res))
			}

			call := rx.span(t, "tools/call get_order")
			if got := hexID(call.TraceId); got != clientTrace {
				t.Errorf("the call's trace %s is not the client's %s", got, clientTrace)
			}
			if got := hexID(call.ParentSpanId); got != clientSpan {
				t.Errorf("the call's parent %s is not the client's span %s", got, clientSpan)
			}
			if call.Kind != tracepb.Span_SPAN_KIND_SERVER || attr(call, "gen_ai.tool.name") != "get_order" || attr(call, "tailor.outcome") != "ok" {
				t.Errorf("call span: %v", call)
			}
			req := rx.span(t, "GET /orders/{order_id}")
			if hexID(req.ParentSpanId) != hexID(call.SpanId) || req.Kind != tracepb.Span_SPAN_KIND_CLIENT {
				t.Errorf("the request span is not the call span's child: %v", req)
			}
			mu.Lock()
			got := traceparents["GET /orders/5531"]
			mu.Unlock()
			if want := "00-" + clientTrace + "-" + hexID(req.SpanId) + "-01"; got != want {
				t.Errorf("the backend received traceparent %q, want the request span's %q", got, want)
			}
			confirm := rx.span(t, "tools/call refund_items")
			if attr(confirm, "tailor.quote.id") != q {
				t.Errorf("confirm span without its quote %s: %v", q, confirm.Attributes)
			}
			rx.mu.Lock()
			for _, s := range rx.spans {
				// The span's text only: its times and ids are digits that
				// may spell an argument by chance.
				if text := spanText(s); strings.Contains(text, "5531") || strings.Contains(text, "li_2") || strings.Contains(text, backend.Wang) {
					b, _ := protojson.Marshal(s)
					t.Errorf("span %q holds an argument's or the caller's value: %s", s.Name, b)
				}
			}
			if len(rx.service) == 0 || rx.service[0] != "backoffice" {
				t.Errorf("service.name: %v", rx.service)
			}
			rx.mu.Unlock()

			for _, c := range []struct {
				metric string
				attrs  map[string]string
			}{
				{"tailor.tool.calls", map[string]string{"gen_ai.tool.name": "get_order", "tailor.outcome": "ok"}},
				{"tailor.quotes.created", map[string]string{"gen_ai.tool.name": "quote_refund"}},
				{"tailor.quotes.consumed", map[string]string{"gen_ai.tool.name": "refund_items"}},
				{"tailor.approvals.asked", map[string]string{"gen_ai.tool.name": "refund_items"}},
			} {
				if n := rx.sum(t, c.metric, c.attrs, 1); n != 1 {
					t.Errorf("%s%v = %d, want 1", c.metric, c.attrs, n)
				}
			}
			if strings.Contains(srv.Stderr(), "telemetry not exported") {
				t.Errorf("export errors:\n%s", srv.Stderr())
			}
		})
	}
}

// TestTelemetryCollectorRefuses: over stdio, with telemetry on and a
// collector refusing every export, each line the server writes on stdout
// is a JSON-RPC message, from start to exit (the flush at exit included);
// the calls are answered; the export errors are on stderr, one line per
// 30 s while it runs. A bad OTEL_* setting stops the server at start,
// naming it. Generated and served.
func TestTelemetryCollectorRefuses(t *testing.T) {
	for _, sv := range backofficeServers() {
		t.Run(sv.kind, func(t *testing.T) {
			rx := newOTLPReceiver(t, http.StatusBadRequest)
			rig := newShop(t)
			bin, pre := sv.command(t)
			env := []string{"BACKOFFICE_BASE_URL=" + rig.url, "BACKOFFICE_CUSTOMER_ID=" + backend.Wang,
				"OTEL_EXPORTER_OTLP_ENDPOINT=" + rx.url, "OTEL_BSP_SCHEDULE_DELAY=50", "OTEL_METRIC_EXPORT_INTERVAL=100",
				"OTEL_METRICS_EXPORTER=", "OTEL_TRACES_EXPORTER=", "OTEL_SDK_DISABLED="}
			cmd := exec.Command(bin, pre...)
			cmd.Env = append(os.Environ(), env...)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			lines := make(chan string, 16)
			go func() {
				sc := bufio.NewScanner(stdout)
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			var out []string
			await := func(id string) {
				t.Helper()
				for {
					select {
					case l, ok := <-lines:
						if !ok {
							t.Fatalf("stdout closed before the answer to %s; stderr:\n%s", id, stderr.String())
						}
						out = append(out, l)
						if strings.Contains(l, `"id":`+id+`,`) || strings.HasSuffix(l, `"id":`+id+`}`) {
							return
						}
					case <-time.After(20 * time.Second):
						t.Fatalf("no answer to %s", id)
					}
				}
			}
			io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
			await("1")
			io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			for i, id := range []string{"2", "3", "4"} {
				io.WriteString(stdin, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"get_order","arguments":{"order_id":"5531"},"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333`+strconv.Itoa(i)+`-01"}}}`+"\n")
				await(id)
				time.Sleep(150 * time.Millisecond) // an export fails meanwhile
			}
			stdin.Close()
			for l := range lines {
				out = append(out, l)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("the server did not exit after stdin closed")
			}
			for _, l := range out {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil || m["jsonrpc"] != "2.0" {
					t.Errorf("stdout line that is not a JSON-RPC message: %q", l)
				}
			}
			if len(out) != 4 {
				t.Errorf("%d lines on stdout, want the 4 answers: %q", len(out), out)
			}
			if n := strings.Count(stderr.String(), `"msg":"telemetry not exported"`); n != 1 {
				t.Errorf("%d export error lines in under a second, want 1:\n%s", n, stderr.String())
			}
			if !strings.Contains(stderr.String(), `"msg":"telemetry not exported at exit"`) {
				t.Errorf("the flush at exit failed silently:\n%s", stderr.String())
			}

			code, errs := runServer(t, sv, append(env, "OTEL_TRACES_EXPORTER=console"))
			if code != 2 || !strings.Contains(errs, "OTEL_TRACES_EXPORTER=console: this server exports to OTLP only") {
				t.Errorf("console exporter: exit %d: %s", code, errs)
			}
		})
	}
}
