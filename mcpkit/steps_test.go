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
	k, err := NewKit(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: backend.URL, Log: &log, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	step := func(name, method, binding string) Step {
		return Step{Name: name, ReadOnly: method == http.MethodGet, Build: func(c *Call, s *Scope) *Request {
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
	// the failing one was not sent.
	tool = &Tool{Name: "after", InputSchema: schema, Steps: []Step{step("read", http.MethodGet, "{{.args.x}}"), step("write", http.MethodPost, "id {{.steps.read.body.owner.name}}")}}
	text = run(tool, `{"x":"1"}`)
	if len(got) != 1 || got[0] != "GET /things" {
		t.Errorf("requests: %v", got)
	}
	for _, want := range []string{"Only part of after was done", "Then step write failed", "Its request was not sent"} {
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
	k, err := NewKit(API{Name: "x", EnvPrefix: "X"}, Config{BaseURL: backend.URL, Log: &log, Getenv: func(string) string { return "" }})
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
