package mcpkit

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
)

// Tool is the static description of one generated tool.
type Tool struct {
	Name        string
	Title       string
	Description string
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
	// InputSchema and OutputSchema are JSON Schema 2020-12 documents.
	InputSchema  string
	OutputSchema string
	// StrictSchema, when set, is listed instead of InputSchema: its form
	// in the subset model APIs accept as strict; StrictPlan maps a call in
	// that form back (strict.go).
	StrictSchema string
	StrictPlan   string
	// Security lists alternative sets of security scheme names; the first
	// set whose credentials are all configured is applied.
	Security [][]string
	// Scopes are the OAuth scopes a caller's verified token must all hold
	// to see and call the tool (see scopes.go).
	Scopes []string
	// Wrap names the structuredContent property a non-object JSON response
	// goes under ("items", "value"), or is empty.
	Wrap string
	// Defaults are sent when the model leaves an argument out (JSON).
	Defaults map[string]string
	// Keep or Drop project the response body (JSONPath, RFC 9535).
	Keep []string
	Drop []string
	// Text is a template rendered for the model with .args, .body, .status.
	Text string
	// MaxBytes bounds the JSON the model reads (0: Config.MaxResultBytes).
	MaxBytes int
	// Errors turn matching failures into messages, first match wins.
	Errors []ErrorRule
	// Messages override built-in messages for this tool, by id (see
	// Catalog); they win over API.Messages.
	Messages map[string]string
	// Quote makes this a quote tool (see QuoteSpec).
	Quote *QuoteSpec
	// Confirms names the quote tool whose quotes this tool carries out.
	Confirms string
	// Approval asks the person before a confirm tool runs.
	Approval *Approval
	// Steps make a composed tool, run by Call.RunSteps.
	Steps []Step
	// Reads are read-only steps a one-operation tool runs before asking
	// for approval or holding a quote (approve_any.go, quote_held.go).
	Reads []Step
	// Toolset names the group the tool belongs to (see Selection).
	Toolset string
	// Writes: a request of the tool is neither GET nor HEAD (a quote or
	// composed tool included); --read-only refuses it.
	Writes bool

	once      sync.Once
	validator *validator
	schemaErr error
}

// entry is a registered tool: its definition as listed and its handler as
// served (which the dynamic call_tool calls too).
type entry struct {
	tool    *Tool
	def     *mcp.Tool
	handler mcp.ToolHandler
	// search is the tool's words, for search_tools (dynamic.go).
	search sync.Once
	words  toolWords
}

// Handler performs one tool call.
type Handler func(c *Call) *mcp.CallToolResult

// Definition is the tool as tools/list lists it (tailor's review tools
// count its tokens).
func (t *Tool) Definition() *mcp.Tool {
	open := t.OpenWorld
	def := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: rawSchema(t.InputSchema),
		Annotations: &mcp.ToolAnnotations{
			Title:          t.Title,
			ReadOnlyHint:   t.ReadOnly,
			IdempotentHint: t.Idempotent,
			OpenWorldHint:  &open,
		},
	}
	if !t.ReadOnly {
		d := t.Destructive
		def.Annotations.DestructiveHint = &d
	}
	if t.OutputSchema != "" {
		def.OutputSchema = rawSchema(t.OutputSchema)
	}
	if t.StrictSchema != "" {
		def.InputSchema = rawSchema(t.StrictSchema)
	}
	return def
}

// resolved compiles the input schema on first use, so that start-up does
// not pay for tools that are never called.
func (t *Tool) compiled() (*validator, error) {
	t.once.Do(func() {
		t.validator, t.schemaErr = compileSchema(t.Name, t.InputSchema)
	})
	return t.validator, t.schemaErr
}

// rawSchema is a generated schema, kept as the JSON text it was generated
// as and listed verbatim.
type rawSchema string

func (s rawSchema) MarshalJSON() ([]byte, error) { return []byte(s), nil }

// objectRoot stands in for every tool's schemas while go-sdk registers the
// tool. Server.AddTool checks that an input schema's root is an object: a
// *jsonschema.Schema by a field, any other value by encoding it and parsing
// it back whole, which for a server with hundreds of tools was most of its
// start-up (kubernetes: ~370 ms of ~380 ms when the full schemas were
// parsed; still ~10 ms for {"type":"object"} per tool). Every generated
// schema's root is an object (the generator guarantees it; the e2e tests
// list the full schemas), so AddTool below registers with objectRoot and
// puts the generated text back on the same *mcp.Tool, which go-sdk keeps
// and lists as it is. Registration happens before the server serves.
var objectRoot = &jsonschema.Schema{Type: "object"}

// AddTool registers t on s; calls run h with validated arguments.
func (k *Runtime) AddTool(s *mcp.Server, t *Tool, h Handler) {
	def := t.Definition()
	e := &entry{tool: t, def: def}
	k.tools = append(k.tools, e)
	if k.byName == nil {
		k.byName = map[string]*entry{}
	}
	k.byName[t.Name] = e
	if s == nil { // toolsOf: listed, not served
		return
	}
	input, output := def.InputSchema, def.OutputSchema
	def.InputSchema = objectRoot
	if output != nil {
		def.OutputSchema = objectRoot
	}
	// The tool's name as spans and metrics record it (redacted, as
	// anything recorded is), worked out once.
	var recorded string
	if k.tel != nil {
		recorded = k.redact(t.Name)
	}
	handle := func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		start := time.Now()
		ctx, running := k.ops.calls.begin(ctx, t.Name, start)
		var span trace.Span
		if k.tel != nil {
			ctx, span = k.tel.startCall(ctx, req, recorded)
		}
		var c *Call
		defer func() {
			if r := recover(); r != nil {
				log := k.log
				if c != nil {
					log = c.logger()
				}
				log.Error("tool handler panicked", "tool", t.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				res, err = errorResult(k.render("internal_error", t.Name, t.Messages, nil)), nil
				if c != nil {
					c.audit.said("internal_error")
				}
			}
			var ended callEnd
			if c != nil {
				// Everything the client receives and the audit log records
				// passes here: secrets redacted, sizes bounded, and
				// structuredContent fitted to the output schema.
				res = c.finish(res)
				ended = c.ended(res, start)
			}
			if span != nil {
				k.tel.record(span, c, res, recorded, time.Since(start))
			}
			// The call is over once its record is written (a shutdown
			// waits for that); over stdio, after its result (afterReply).
			final := res
			k.afterReply.do(func() {
				if c != nil {
					k.writeAudit(c, final, start, ended)
				}
				k.ops.calls.end(running)
			})
		}()
		var bad *mcp.CallToolResult
		c, bad = k.newCall(ctx, req, t)
		running.call.Store(c)
		// What the request may not use comes first: nothing about the call
		// matters then.
		if refused := c.refusedCall(); refused != nil {
			return refused, nil
		}
		// What the server lacks comes next: no argument can fix it.
		if missing := c.unconfigured(); missing != nil {
			return missing, nil
		}
		if bad != nil {
			return bad, nil
		}
		// The person approves before anything is sent (approve_any.go).
		if res := c.approveCall(); res != nil {
			return res, nil
		}
		return h(c), nil
	}
	e.handler = handle
	s.AddTool(def, e.handler)
	// go-sdk keeps def: it lists the generated schemas from now on.
	def.InputSchema, def.OutputSchema = input, output
}
