package mcpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A step argument that cannot be evaluated is never sent as "unset": the
// composed tool stops before the step's request, and before any step when
// the argument does not depend on an earlier step.
func TestBindingFailureStopsBeforeTheRequest(t *testing.T) {
	var mu sync.Mutex
	var got []string
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"a1","owner":"someone"}`))
	}))
	defer backend.Close()
	var log bytes.Buffer
	k, err := NewRuntime(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: backend.URL, Log: &log, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	step := func(name, method, binding string) Step {
		return Step{Name: name, ReadOnly: method == http.MethodGet, Request: func(c *Call, s *Scope) *Request {
			r := c.Request(method, "/things")
			r.Body(JSON, "application/json", false)
			r.Field("v", s.Value(binding))
			return r
		}}
	}
	run := func(tool *Tool, args string) string {
		got = nil
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool.Name, Arguments: json.RawMessage(args)}}
		c, bad := k.newCall(context.Background(), req, tool)
		if bad != nil {
			t.Fatalf("arguments refused: %s", textOf(bad))
		}
		return textOf(c.finish(c.RunSteps()))
	}
	schema := `{"type":"object","properties":{"x":{}}}`

	// .args.x.y where x is text: caught before the first request.
	tool := &Tool{Name: "both", InputSchema: schema, Steps: []Step{step("read", http.MethodGet, "{{.args.x}}"), step("write", http.MethodPost, "{{.args.x.y}}")}}
	text := run(tool, `{"x":"text"}`)
	if len(got) != 0 {
		t.Errorf("requests were sent: %v", got)
	}
	for _, want := range []string{"Nothing was done", "step write", "Its request was not sent", `.args.x is the text "text", not an object with a field "y"`} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in %s", want, text)
		}
	}

	// A template that fails on an earlier step's result: that step ran,
	// the failing one was not sent. A read changes nothing, so nothing was
	// done.
	tool = &Tool{Name: "after", InputSchema: schema, Steps: []Step{step("read", http.MethodGet, "{{.args.x}}"), step("write", http.MethodPost, "id {{.steps.read.body.owner.name}}")}}
	text = run(tool, `{"x":"1"}`)
	if len(got) != 1 || got[0] != "GET /things" {
		t.Errorf("requests: %v", got)
	}
	for _, want := range []string{"Nothing was done: step write failed", "Its request was not sent"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in %s", want, text)
		}
	}
	if !strings.Contains(log.String(), "step binding failed") {
		t.Errorf("not logged: %s", log.String())
	}

	// A result template that fails: the model is told, and gets the data.
	tool = &Tool{Name: "text", InputSchema: schema, Text: "{{.steps.read.body.nope}}", Steps: []Step{step("read", http.MethodGet, "{{.args.x}}")}}
	text = run(tool, `{"x":"1"}`)
	for _, want := range []string{"The summary of this result could not be written", `map has no entry for key "nope"`, "Done: read", `"owner":"someone"`} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in %s", want, text)
		}
	}
}

// A single tool's result template that fails at run time: the model is
// told above the data, and the call still succeeded.
func TestResultTemplateFailure(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"a1","credit":0}`))
	}))
	defer backend.Close()
	var log bytes.Buffer
	k, err := NewRuntime(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: backend.URL, Log: &log, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	tool := &Tool{Name: "get", ReadOnly: true, InputSchema: `{"type":"object"}`, Text: `{{.body.id}}{{if gt .body.credit "0"}} credit{{end}}`}
	c, bad := k.newCall(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "get"}}, tool)
	if bad != nil {
		t.Fatal(textOf(bad))
	}
	res := c.finish(c.Do(c.Request(http.MethodGet, "/x")))
	text := textOf(res)
	if res.IsError || !strings.Contains(text, "The summary of this result could not be written: at <gt .body.credit \"0\">") || !strings.Contains(text, `{"id":"a1","credit":0}`) {
		t.Errorf("result: %v %s", res.IsError, text)
	}
	if !strings.Contains(log.String(), "result template failed") {
		t.Errorf("not logged: %s", log.String())
	}
}

// A write that answers 2xx with an answer that cannot be read took effect:
// the run stops, says so, and keeps it in the quote as done. Calling again
// does not send it again and, when no later step needs its answer,
// finishes the run. When it is the last step, the run is complete and the
// quote used.
func TestUnreadableWriteTookEffect(t *testing.T) {
	var mu sync.Mutex
	var got []string
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("Idempotency-Key"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/first" {
			w.Write([]byte(`<html>oops`))
			return
		}
		w.Write([]byte(`{"id":"n1"}`))
	}))
	defer backend.Close()
	k, err := NewRuntime(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: backend.URL, Log: &bytes.Buffer{}, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, path string) Step {
		return Step{Name: name, IdempotencyKey: true, Request: func(c *Call, s *Scope) *Request { return c.Request(http.MethodPost, path) }}
	}
	run := func(tool *Tool, quote string) (*mcp.CallToolResult, []string) {
		got = nil
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool.Name, Arguments: json.RawMessage(`{"quote_id":"` + quote + `"}`)}}
		c, bad := k.newCall(context.Background(), req, tool)
		if bad != nil {
			t.Fatalf("arguments refused: %s", textOf(bad))
		}
		return c.finish(confirmHandler(c)), got
	}
	newQuote := func() string {
		c, _ := k.newCall(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "q"}}, &Tool{Name: "q", InputSchema: `{"type":"object"}`, Quote: &QuoteSpec{TTLSeconds: 600}})
		q, err := c.saveQuote(map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		return q["id"].(string)
	}
	schema := `{"type":"object","properties":{"quote_id":{"type":"string"}}}`

	tool := &Tool{Name: "both", Confirms: "q", InputSchema: schema, Steps: []Step{write("first", "/first"), write("second", "/second")}}
	q := newQuote()

	// Only through its quote: RunSteps does not run a confirm tool's steps.
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool.Name, Arguments: json.RawMessage(`{"quote_id":"` + q + `"}`)}}
	if c, _ := k.newCall(context.Background(), req, tool); c != nil {
		got = nil
		if res := c.RunSteps(); !res.IsError || len(got) != 0 {
			t.Fatalf("RunSteps on a confirm tool: sent %v: %s", got, textOf(res))
		}
	}

	res, sent := run(tool, q)
	text := textOf(res)
	if !res.IsError || len(sent) != 1 {
		t.Fatalf("first run: sent %v: %s", sent, text)
	}
	for _, want := range []string{"Only part of both was done.", "Took effect: step first (its answer could not be read).", "Did not run: step second.",
		"Step first took effect (the API answered HTTP 200 OK), but its content is not valid JSON", "Calling both again with quote_id " + q + " finishes it"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in %s", want, text)
		}
	}
	if strings.Contains(text, "may or may not") || strings.Contains(text, "Do that only once") {
		t.Errorf("first run: %s", text)
	}
	res, sent = run(tool, q)
	text = textOf(res)
	if res.IsError || len(sent) != 1 || sent[0] != "POST /second "+q {
		t.Fatalf("resumed run: sent %v: %s", sent, text)
	}
	if !strings.Contains(text, "Done: step first (its answer could not be read); step second, created n1.") {
		t.Errorf("resumed run: %s", text)
	}
	if res, sent = run(tool, q); !res.IsError || len(sent) != 0 || !strings.Contains(textOf(res), "already carried out") {
		t.Errorf("third run: sent %v: %s", sent, textOf(res))
	}

	// The last step: the run is complete, as is the quote.
	tool = &Tool{Name: "last", Confirms: "q", InputSchema: schema, Steps: []Step{write("second", "/second"), write("first", "/first")}}
	q = newQuote()
	res, _ = run(tool, q)
	text = textOf(res)
	if !res.IsError || !strings.Contains(text, "Every step of last took effect (step second, created n1; step first (its answer could not be read)), but the answer to step first (HTTP 200 OK) cannot be used") {
		t.Errorf("last step: %s", text)
	}
	if res, sent = run(tool, q); len(sent) != 0 || !strings.Contains(textOf(res), "already carried out") {
		t.Errorf("after a complete run: sent %v: %s", sent, textOf(res))
	}
}

// confirmHandler is what tailor generates for a confirm tool.
func confirmHandler(c *Call) *mcp.CallToolResult {
	q, res := c.TakeQuote()
	if res != nil {
		return res
	}
	if res := q.Preflight(); res != nil {
		return res
	}
	if res := q.Reserve(); res != nil {
		return res
	}
	return q.Run()
}
