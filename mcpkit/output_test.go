package mcpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// An output schema as the generator writes it: an object root with
// optional, nullable fields (see internal/generate/schema/output.go).
const outSchema = `{"type":"object","properties":{
	"id":{"type":["string","null"]},
	"price":{"type":["number","null"]},
	"tags":{"type":["array","null"],"items":{"type":["string","null"]}},
	"items":{"type":["array","null"],"items":{"type":["object","null"],"properties":{"n":{"type":["integer","null"]}}}}}}`

func TestConformKeepsWhatFits(t *testing.T) {
	cases := []struct {
		name, sc, want, logged string
	}{
		{"fits, with an extra field", `{"id":"a","extra":{"x":1}}`, `{"extra":{"x":1},"id":"a"}`, ""},
		{"a required field missing", `{}`, `{}`, ""},
		{"string for number", `{"id":"a","price":"12.50"}`, `{"id":"a"}`, "price: got string, want null or number"},
		{"object for array", `{"id":"a","tags":{"k":"v"}}`, `{"id":"a"}`, "tags: got object, want null or array"},
		{"one array element of the wrong type", `{"tags":["a",7,"c"]}`, `{"tags":["a",null,"c"]}`, "tags[1]: got number"},
		{"deep", `{"items":[{"n":1},{"n":"two"}]}`, `{"items":[{"n":1},{}]}`, "items[1].n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var log bytes.Buffer
			k, err := NewRuntime(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: "http://127.0.0.1:1", Log: &log})
			if err != nil {
				t.Fatal(err)
			}
			log.Reset()
			tool := &Tool{Name: "get_thing", OutputSchema: outSchema}
			orig := decode(t, c.sc)
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: c.sc}}, StructuredContent: orig}
			k.conform(tool, res, nil)
			if got := jsonv.Text(res.StructuredContent); got != c.want {
				t.Errorf("structuredContent = %s, want %s", got, c.want)
			}
			if got := jsonv.Text(orig); got != jsonv.Text(decode(t, c.sc)) {
				t.Errorf("the original value was changed: %s", got)
			}
			if res.Content[0].(*mcp.TextContent).Text != c.sc {
				t.Errorf("the text content changed")
			}
			if c.logged == "" && log.Len() > 0 {
				t.Errorf("logged for a fitting result: %s", log.String())
			}
			if c.logged != "" && (!strings.Contains(log.String(), c.logged) || !strings.Contains(log.String(), "get_thing")) {
				t.Errorf("log does not say %q for the tool:\n%s", c.logged, log.String())
			}
			if err := k.outputSchema(tool).Validate(res.StructuredContent); err != nil {
				t.Errorf("structuredContent still does not validate: %v", err)
			}
		})
	}
}

func TestConformGivesEveryResultStructuredContent(t *testing.T) {
	k, err := NewRuntime(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: "http://127.0.0.1:1", Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	tool := &Tool{Name: "t", OutputSchema: `{"type":"object","properties":{"items":{"type":["array","null"]}}}`}
	res := textResult("Done: the API answered HTTP 204 No Content with no content.")
	k.conform(tool, res, nil)
	if jsonv.Text(res.StructuredContent) != `{}` {
		t.Errorf("structuredContent = %v, want {}", res.StructuredContent)
	}
	bad := errorResult("no")
	k.conform(tool, bad, nil)
	if bad.StructuredContent != nil {
		t.Errorf("an error result got structuredContent")
	}
	// An array where the schema wants an object root.
	arr := &mcp.CallToolResult{StructuredContent: []any{"a"}}
	k.conform(tool, arr, nil)
	if jsonv.Text(arr.StructuredContent) != `{}` {
		t.Errorf("structuredContent = %v, want {}", arr.StructuredContent)
	}
}

func TestStartsWithoutConfiguration(t *testing.T) {
	api := API{Name: "x", EnvPrefix: "PETS", DefaultBaseURL: "/api/v2",
		Schemes: []Scheme{{Name: "key", Kind: APIKey, In: "header", ParamName: "X-Key", Env: "PETS_KEY"}}}
	var log bytes.Buffer
	k, err := NewRuntime(api, Config{Log: &log, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("a server without a base URL must start: %v", err)
	}
	for _, want := range []string{"no backend base URL", `\"/api/v2\"`, "PETS_BASE_URL", "no credentials", "PETS_KEY"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("start-up log lacks %q:\n%s", want, log.String())
		}
	}
	unconfigured := func(t *Tool) *mcp.CallToolResult {
		return (&Call{kit: k, tool: t}).unconfigured()
	}
	res := unconfigured(&Tool{Name: "t", Security: [][]string{{"key"}}})
	if res == nil || !res.IsError || !strings.Contains(textOf(res), "--base-url or PETS_BASE_URL") || strings.Contains(strings.ToLower(textOf(res)), "retry later") {
		t.Errorf("a call without a base URL: %+v", res)
	}

	k, err = NewRuntime(api, Config{BaseURL: "http://127.0.0.1:1", Log: &log, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	res = unconfigured(&Tool{Name: "t", Security: [][]string{{"key"}}})
	if res == nil || !strings.Contains(textOf(res), "PETS_KEY") {
		t.Errorf("a call without its credential: %+v", res)
	}
	if res := unconfigured(&Tool{Name: "t", Security: [][]string{{"key"}, {}}}); res != nil {
		t.Errorf("a call whose security allows no credentials was refused: %s", textOf(res))
	}
	if res := unconfigured(&Tool{Name: "t"}); res != nil {
		t.Errorf("a call without security was refused: %s", textOf(res))
	}

	// An explicit base URL that is wrong still stops the server.
	if _, err := NewRuntime(api, Config{BaseURL: "ftp://x", Log: &log}); err == nil || !strings.Contains(err.Error(), "PETS_BASE_URL") {
		t.Errorf("explicit bad base URL: %v", err)
	}
}

// TestUnbuildableRequestIsNotRetried: a request the server cannot build
// (a path placeholder nothing filled) is not sent, not retried, and the
// model is not told to retry later: nothing it can do fixes it.
func TestUnbuildableRequestIsNotRetried(t *testing.T) {
	var hits atomic.Int32
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer backend.Close()
	k, err := NewRuntime(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: backend.URL, Retries: 2, Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	tool := &Tool{Name: "get_job", ReadOnly: true, InputSchema: `{"type":"object"}`}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Arguments: json.RawMessage(`{}`)}}
	c, bad := k.newCall(context.Background(), req, tool)
	if bad != nil {
		t.Fatal(textOf(bad))
	}
	res := c.Do(c.Request(http.MethodGet, "/jobs/{job_id}"))
	text := textOf(res)
	if !res.IsError || !strings.Contains(text, "retrying will not help") || strings.Contains(strings.ToLower(text), "retry later") {
		t.Errorf("result: %q", text)
	}
	if hits.Load() != 0 {
		t.Errorf("the backend was called %d times", hits.Load())
	}
}

// TestMisfitLoggedOncePerInterval: an API that drifted from its
// description drifts on every call. The same misfit of the same tool (the
// same places failing the same keywords, whatever the values) is logged
// once per interval, and the next line counts the calls held back; a
// different misfit, or another tool's, has a line of its own.
func TestMisfitLoggedOncePerInterval(t *testing.T) {
	var log bytes.Buffer
	k, err := NewRuntime(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: "http://127.0.0.1:1", Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	k.misfits.Now = func() time.Time { return clock }
	const misfit = "does not match the tool's output schema"
	get := &Tool{Name: "get_thing", OutputSchema: outSchema}
	list := &Tool{Name: "list_things", OutputSchema: outSchema}
	call := func(tool *Tool, sc string) int {
		log.Reset()
		k.conform(tool, &mcp.CallToolResult{StructuredContent: decode(t, sc)}, nil)
		return strings.Count(log.String(), misfit)
	}
	for i, c := range []struct {
		name string
		tool *Tool
		sc   string
		want int
	}{
		{"first misfit", get, `{"price":"12.50"}`, 1},
		{"the same again", get, `{"price":"12.50"}`, 0},
		{"the same place and keyword, another value", get, `{"price":"13"}`, 0},
		{"another place", get, `{"tags":{"k":"v"}}`, 1},
		{"the first one, for another tool", list, `{"price":"12.50"}`, 1},
		{"a result that fits", get, `{"price":12.5}`, 0},
	} {
		if got := call(c.tool, c.sc); got != c.want {
			t.Errorf("%d (%s): %d lines, want %d", i, c.name, got, c.want)
		}
	}
	// Once the interval has passed, the line comes again, counting the two
	// held back.
	clock = clock.Add(misfitLogEvery)
	if got := call(get, `{"price":"14"}`); got != 1 || !strings.Contains(log.String(), `"similar_lines_held_back":2`) {
		t.Errorf("after the interval: %d lines, want 1 counting the 2 held back:\n%s", got, log.String())
	}
}

// TestConformAfterRedaction: the output check runs on what the client
// receives, after redaction (which can put "[redacted]" where the schema
// says number), and its log line names no secret, the server's or the
// caller's.
func TestConformAfterRedaction(t *testing.T) {
	var log bytes.Buffer
	k, err := NewRuntime(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: "http://127.0.0.1:1", Log: &log, Secrets: []string{"98765432"},
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	log.Reset()
	tool := &Tool{Name: "get_thing", OutputSchema: `{"type":"object","properties":{"pin":{"type":["number","null"]},"owner":{"type":["object","null"],"additionalProperties":{"type":["number","null"]}}}}`}
	c := &Call{kit: k, tool: tool, header: http.Header{"Authorization": {"Bearer caller-tok-5555"}}}
	sc := decode(t, `{"pin":98765432,"owner":{"caller-tok-5555":"not a number"}}`)
	res := c.finish(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pin 98765432"}}, StructuredContent: sc})
	if got := jsonv.Text(res.StructuredContent); got != `{"owner":{}}` {
		t.Errorf("structuredContent = %s, want the redacted pin and the misfit left out", got)
	}
	if err := k.outputSchema(tool).Validate(res.StructuredContent); err != nil {
		t.Errorf("structuredContent does not validate: %v", err)
	}
	if strings.Contains(log.String(), "98765432") || strings.Contains(log.String(), "caller-tok-5555") || !strings.Contains(log.String(), "pin") {
		t.Errorf("log: %s", log.String())
	}

	// The check's own log line passes the call's redactor, whatever it is
	// given.
	log.Reset()
	raw := &mcp.CallToolResult{StructuredContent: decode(t, `{"owner":{"caller-tok-5555":"x"}}`)}
	k.conform(tool, raw, c.redactor())
	if !strings.Contains(log.String(), "[redacted]") || strings.Contains(log.String(), "caller-tok-5555") {
		t.Errorf("log: %s", log.String())
	}
}
