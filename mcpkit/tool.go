package mcpkit

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	// Security lists alternative sets of security scheme names; the first
	// set whose credentials are all configured is applied.
	Security [][]string
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
	// Quote makes this a quote tool (see QuoteSpec).
	Quote *QuoteSpec
	// Confirms names the quote tool whose quotes this tool carries out.
	Confirms string
	// Approval asks the person before a confirm tool runs.
	Approval *Approval
	// Steps make a composed tool, run by Call.RunSteps.
	Steps []Step

	once      sync.Once
	validator *validator
	schemaErr error
}

// Handler performs one tool call.
type Handler func(c *Call) *mcp.CallToolResult

// definition is the tool as the protocol lists it.
func (t *Tool) definition(registered *atomic.Bool) *mcp.Tool {
	open := t.OpenWorld
	def := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: schemaJSON{raw: t.InputSchema, registered: registered},
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
		def.OutputSchema = schemaJSON{raw: t.OutputSchema, registered: registered}
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

// schemaJSON is a generated schema, kept as the JSON text it was generated
// as. go-sdk's Server.AddTool checks that a schema's root is an object by
// encoding it and parsing it back whole; for a server with hundreds of tools
// that parse was most of its start-up time (kubernetes: ~370 ms of ~380 ms).
// Until registration is over, a schemaJSON therefore encodes as its root
// alone, {"type":"object"} (which every generated schema's root is: the
// generator guarantees it and the e2e tests list the full schemas);
// afterwards, and so in every tools/list, as the full document.
type schemaJSON struct {
	raw        string
	registered *atomic.Bool
}

func (s schemaJSON) MarshalJSON() ([]byte, error) {
	if !s.registered.Load() {
		return []byte(`{"type":"object"}`), nil
	}
	return []byte(s.raw), nil
}

// AddTool registers t on s; calls run h with validated arguments.
func (k *Kit) AddTool(s *mcp.Server, t *Tool, h Handler) {
	s.AddTool(t.definition(&k.registered), func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				k.log.Error("tool handler panicked", "tool", t.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				res, err = errorResult("The tool failed because of an internal error in the MCP server (this is a bug, not a problem with your arguments). Do not retry; tell the user the tool is broken."), nil
			}
		}()
		start := time.Now()
		c, bad := k.newCall(ctx, req, t)
		if bad != nil {
			return bad, nil
		}
		defer func() { k.writeAudit(c, res, start) }()
		return h(c), nil
	})
}
