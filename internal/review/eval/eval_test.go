package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v4"

	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/testkit"
	"github.com/tailormcp/tailor/internal/yamlwalk"
	"github.com/tailormcp/tailor/scenarios"
)

const repoRoot = "../../.."

var taskFiles = []string{
	filepath.Join(repoRoot, "examples", "backoffice", "tasks.yaml"),
	filepath.Join("testdata", "every-key.yaml"),
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for id, data := range map[string][]byte{scenarios.SchemaID: scenarios.Schema, scenarios.TaskSchemaID: scenarios.TaskSchema} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s is not JSON: %v", id, err)
		}
		if err := c.AddResource(id, doc); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile(scenarios.TaskSchemaID)
	if err != nil {
		t.Fatalf("task.schema.json does not compile: %v", err)
	}
	return s
}

// The repository's task files parse and are valid under the schema; a
// file the parser refuses for its shape is refused by the schema too; and
// every key the parser knows is in the schemas.
func TestSchemaAgreesWithParse(t *testing.T) {
	s := compileSchema(t)
	keys := map[string]bool{}
	for _, name := range taskFiles {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parse(name, data, keys); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		var v any
		yaml.Unmarshal(data, &v)
		if err := s.Validate(yamlwalk.JSONable(v)); err != nil {
			t.Errorf("%s is not valid under task.schema.json: %v", name, err)
		}
	}
	var v any
	yaml.Unmarshal([]byte(badFile), &v)
	if s.Validate(yamlwalk.JSONable(v)) == nil {
		t.Error("the schema accepts the file with unknown keys")
	}
	inSchema := testkit.SchemaKeys(t, scenarios.TaskSchema)
	for k := range testkit.SchemaKeys(t, scenarios.Schema) {
		inSchema[k] = true
	}
	for k := range keys {
		if !inSchema[k] {
			t.Errorf("the parser knows %q, the schemas do not", k)
		}
	}
	for _, k := range []string{"tailor-eval", "ask", "persona", "replies", "approvals", "success", "count", "reset", "start"} {
		if !keys[k] {
			t.Errorf("the test files do not use %q", k)
		}
	}
}

const badFile = `tailor-eval: 1
backend: {start: "shop-api"}
tasks:
  - name: refund
    aks: refund my case
    replies: [{when: "(unclosed", say: yes}]
    approvals: [{answer: acept}]
    success:
      requests: [{method: POTS, path: orders, count: -1}]
  - name: refund
    ask: again
    success: {}
`

// Every problem of a task file is reported at once, at its line and
// column, unknown keys with the nearest known one.
func TestParseReportsEveryProblemPositioned(t *testing.T) {
	_, err := Parse("tasks.yaml", []byte(badFile))
	var de *diag.Errors
	if !errors.As(err, &de) {
		t.Fatalf("want diag.Errors, got %v", err)
	}
	got := err.Error()
	for _, want := range []string{
		"tasks.yaml:2:18: error: backend.start must say where to listen with {addr}",
		"tasks.yaml:4:5: error: task \"refund\" has no `ask`",
		"tasks.yaml:5:5: error: unknown key `aks` in task \"refund\"; did you mean `ask`?",
		`tasks.yaml:6:22: error: "(unclosed" is not a regular expression Go accepts`,
		"tasks.yaml:7:26: error: answer \"acept\" is not one of accept, decline, cancel; did you mean `accept`?",
		"tasks.yaml:9:27: error: method \"POTS\" is not an HTTP method; did you mean `POST`?",
		`tasks.yaml:9:39: error: path "orders" must start with /`,
		"tasks.yaml:9:54: error: count must be a whole number of zero or more",
		`tasks.yaml:10:5: error: two tasks are named "refund" (the first at line 4)`,
		`tasks.yaml:12:14: error: the success of task "refund" is empty`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range taskFiles {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(badFile))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data)
		if err == nil && file == nil {
			t.Fatal("no file and no error")
		}
	})
}

// pass^k is C(c,k)/C(n,k) averaged over tasks: a task that succeeds 3
// times in 4 has pass^1 0.75, pass^2 0.5, pass^4 0.
func TestPassHat(t *testing.T) {
	got := passHat([]*TaskResult{{Stats: Stats{Counted: 4, Succeeded: 3}}, {Stats: Stats{Counted: 4, Succeeded: 4}}})
	want := []float64{0.875, 0.75, 0.625, 0.5}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("pass^k = %v, want %v", got, want)
		}
	}
}

// A request is refused, not made, when what was spent, what requests in
// flight reserved, and what it can cost at most (its input scaled by what
// the provider counted so far, and its whole max_tokens) would pass the
// limit; no later trial then starts.
func TestBudgetIsAHardBound(t *testing.T) {
	b := &budget{limit: 4000}
	calls := 0
	do := func() (*Turn, error) { calls++; return &Turn{Usage: Usage{Input: 500, Output: 1000}}, nil }
	// 300 of our tokens: ceil(300*1.25) + 512 + 1000 = 1887 reserved.
	release := make(chan struct{})
	inFlight := make(chan struct{})
	go b.call(t.Context(), 300, 1000, func() (*Turn, error) { close(inFlight); <-release; return do() })
	<-inFlight
	if _, err := b.call(t.Context(), 300, 1000, do); err != nil {
		t.Fatal(err)
	}
	// 1500 spent, 1887 in flight: a third request of 1887 does not fit.
	if _, err := b.call(t.Context(), 300, 1000, do); !errors.Is(err, errBudget) || !strings.Contains(err.Error(), "1887 reserved") {
		t.Fatalf("%v: the request could take the run past its budget", err)
	}
	close(release)
	for spent, _ := b.total(); spent != 3000; spent, _ = b.total() {
		runtime.Gosched()
	}
	// The provider counted 500 for 300 of ours: the next reservation is
	// 500 + 512 + 100, and 3000 + 1112 > 4000.
	if _, err := b.call(t.Context(), 300, 100, do); !errors.Is(err, errBudget) || calls != 2 {
		t.Fatalf("err %v after %d calls: the ratio the provider counts was not learned", err, calls)
	}
	if spent, _ := b.total(); !b.exhausted() || spent > b.limit {
		t.Fatalf("exhausted %v, spent %d", b.exhausted(), spent)
	}
}

// Tools reach each provider as MCP clients present them: the input schema
// passed through, with only the wrapping the provider requires.
func TestToolsAsProvidersTakeThem(t *testing.T) {
	tools := toolsOf([]*mcp.Tool{
		{Name: "quote_refund", Description: "Preview a refund.", InputSchema: map[string]any{
			"type": "object", "properties": map[string]any{"order_id": map[string]any{"type": "string"}},
			"required": []string{"order_id"}, "additionalProperties": false,
		}},
		{Name: "ping", InputSchema: map[string]any{"type": "object"}},
	}, "plain", "shop")
	a, _ := json.Marshal(anthropicTool(tools[0]))
	for _, want := range []string{`"name":"quote_refund"`, `"description":"Preview a refund."`, `"required":["order_id"]`, `"additionalProperties":false`, `"type":"object"`, `"order_id":{"type":"string"}`} {
		if !strings.Contains(string(a), want) {
			t.Errorf("anthropic tool lacks %s: %s", want, a)
		}
	}
	o, _ := json.Marshal(openAITool(tools[1]))
	if !strings.Contains(string(o), `"parameters":{"properties":{},"type":"object"}`) || strings.Contains(string(o), "description") {
		t.Errorf("openai tool without arguments: %s", o)
	}
	if _, err := argsObject(`{"a": [1,`); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("broken arguments: %v", err)
	}
	if _, err := argsObject(`"{\"a\":1}"`); err == nil || !strings.Contains(err.Error(), "not a string") {
		t.Errorf("arguments as a string: %v", err)
	}
}

// A client named shows the tools as that client does: Claude Code's
// mcp__SERVER__TOOL names (calls map back to the server's names), the
// OpenAI Agents SDK's strict flag on the schemas that keep strict mode's
// rules only.
func TestToolsAsClientsPresentThem(t *testing.T) {
	closed := map[string]any{
		"type": "object", "properties": map[string]any{"order_id": map[string]any{"type": "string"}},
		"required": []string{"order_id"}, "additionalProperties": false,
	}
	open := map[string]any{"type": "object", "properties": map[string]any{"note": map[string]any{"type": "string"}}}
	list := []*mcp.Tool{{Name: "quote_refund", InputSchema: closed}, {Name: "add_note", InputSchema: open}}

	claude := toolsOf(list, "claude-code", "shop api")
	if claude[0].Name != "mcp__shop_api__quote_refund" || mcpName(claude, "mcp__shop_api__add_note") != "add_note" || mcpName(claude, "add_note") != "" {
		t.Errorf("claude-code names: %+v", claude)
	}
	agents := toolsOf(list, "openai-agents", "shop")
	if !agents[0].Strict || agents[1].Strict {
		t.Errorf("openai-agents: strict %v, %v; want the closed schema strict, the open one not", agents[0].Strict, agents[1].Strict)
	}
	o, _ := json.Marshal(openAITool(agents[0]))
	if !strings.Contains(string(o), `"strict":true`) || agents[0].Name != "quote_refund" {
		t.Errorf("a strict tool goes out as %s", o)
	}
	for _, tool := range toolsOf(list, "plain", "shop") {
		if tool.Strict || tool.Name != tool.MCPName {
			t.Errorf("plain: %+v", tool)
		}
	}
}
