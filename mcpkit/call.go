package mcpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call is one tool invocation in progress.
type Call struct {
	ctx    context.Context
	kit    *Kit
	tool   *Tool
	header http.Header // the incoming MCP HTTP request's headers, if any
	// args hold numbers as json.Number so that 64-bit ids reach the backend
	// exactly as the model wrote them.
	args map[string]any
}

// Value is an argument as the model gave it; Set is false when absent.
type Value struct {
	V   any
	Set bool
}

// Arg returns the named argument.
func (c *Call) Arg(name string) Value {
	v, ok := c.args[name]
	return Value{V: v, Set: ok}
}

// Context is the call's context (cancelled when the client cancels).
func (c *Call) Context() context.Context { return c.ctx }

// newCall decodes and validates the arguments. An invalid call becomes a
// tool result that names the field and what was expected, so the model can
// correct it; it is never a protocol error.
func (k *Kit) newCall(ctx context.Context, req *mcp.CallToolRequest, t *Tool) (*Call, *mcp.CallToolResult) {
	c := &Call{ctx: ctx, kit: k, tool: t, args: map[string]any{}}
	if req.Extra != nil {
		c.header = req.Extra.Header
	}
	raw := req.Params.Arguments
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = json.RawMessage("{}")
	}
	// Numbers stay json.Number so that 64-bit ids reach the backend exactly
	// as the model wrote them; the validator reads the same values.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&c.args); err != nil || c.args == nil {
		return nil, errorResult("Invalid arguments: they must be a JSON object of named arguments. Call the tool again with an object matching its input schema.")
	}
	v, err := t.compiled()
	if err != nil {
		// A schema the validator cannot compile must not block the tool:
		// the backend still validates.
		k.log.Warn("input schema not usable for validation; arguments go to the API unchecked", "tool", t.Name, "error", err.Error())
		return c, nil
	}
	if problems := v.validate(anyMap(c.args)); len(problems) > 0 {
		return nil, errorResult(fmt.Sprintf("Invalid arguments for %s: %s. Nothing was sent to the API. Fix the arguments to match the tool's input schema and call it again.", t.Name, strings.Join(problems, "; ")))
	}
	return c, nil
}

func anyMap(m map[string]any) any { return m }

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
