package mcpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/jsonv"
	"github.com/tailormcp/tailor/mcpkit/internal/redact"
)

// Call is one tool invocation in progress.
type Call struct {
	ctx    context.Context
	req    *mcp.CallToolRequest
	kit    *Runtime
	tool   *Tool
	header http.Header // the incoming MCP HTTP request's headers, if any
	// args hold numbers as json.Number so that 64-bit ids reach the backend
	// exactly as the model wrote them.
	args map[string]any
	// token is the verified bearer token's information, if any.
	token *auth.TokenInfo
	// missing names a context value the call needed and did not have;
	// contextProblem says why a source's value was refused, if it was.
	missing        *ContextValue
	contextProblem string
	audit          audit
	// step is the composed tool's step being run, for error rules.
	step string
	// sent is the request of a single-operation tool, once sent.
	sent *Request
	// viaParam names the security schemes whose secret a parameter of
	// this call carries (Credential): they are not applied again.
	viaParam map[string]bool
	// red redacts what the call returns and logs (see Call.redactor).
	red *redact.Redactor
	// bindErr is the first step binding that could not be evaluated.
	bindErr error
	// rawArgs is the arguments' size as sent; argsPreview their start,
	// kept for the audit record of arguments that could not be decoded.
	rawArgs     int
	argsPreview string
	// requestID names the call in logs, the audit record and the backend
	// requests (see requestid.go); log carries it, made on first use (most
	// calls log nothing).
	requestID string
	logOnce   sync.Once
	log       *slog.Logger
	// quoteID names the stored quote a confirm call loaded (its span
	// names it, whatever the call then does).
	quoteID string
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

// Context is the call's Go context (cancelled when the client cancels).
func (c *Call) Context() context.Context { return c.ctx }

// newCall decodes and validates the arguments. An invalid call becomes a
// tool result that names the field and what was expected, so the model can
// correct it; it is never a protocol error. The call is returned either
// way, so that a refused call is audited too.
func (k *Runtime) newCall(ctx context.Context, req *mcp.CallToolRequest, t *Tool) (*Call, *mcp.CallToolResult) {
	c := &Call{ctx: ctx, req: req, kit: k, tool: t}
	c.requestID = newRequestID()
	if req.Extra != nil {
		c.header = req.Extra.Header
		c.token = req.Extra.TokenInfo
	}
	raw := req.Params.Arguments
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = json.RawMessage("{}")
	}
	c.rawArgs = len(raw)
	// Limits first: a huge or deeply nested value is refused before any
	// work is spent on it (decoding, validation, the audit record).
	if len(raw) > k.cfg.MaxArgumentBytes {
		c.argsPreview = string(raw[:min(len(raw), 200)])
		return c, errorResult(c.say("arguments_too_large", M{"size": byteSize(len(raw)), "limit": byteSize(k.cfg.MaxArgumentBytes)}))
	}
	if jsonv.Depth(raw) > k.cfg.MaxArgumentDepth {
		c.argsPreview = string(raw[:min(len(raw), 200)])
		return c, errorResult(c.say("arguments_too_deep", M{"limit": k.cfg.MaxArgumentDepth}))
	}
	// Numbers stay json.Number so that 64-bit ids reach the backend exactly
	// as the model wrote them; the validator reads the same values.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&c.args); err != nil || c.args == nil {
		c.args = nil
		c.argsPreview = string(raw[:min(len(raw), 200)])
		return c, errorResult(c.say("arguments_not_object", nil))
	}
	t.fromStrict(c.args)
	for name, d := range t.Defaults {
		if _, given := c.args[name]; !given {
			c.args[name] = Fixed(d).V
		}
	}
	v, err := t.compiled()
	if err != nil {
		// A schema the validator cannot compile must not block the tool:
		// the backend still validates.
		c.logger().Warn("input schema not usable for validation; arguments go to the API unchecked", "tool", t.Name, "error", err.Error())
		return c, nil
	}
	v.dropClientArgs(c.args)
	if problems, names := v.validate(anyMap(c.args)); len(problems) > 0 {
		c.audit.Invalid = truncateList(names)
		return c, errorResult(c.say("arguments_invalid", M{"problems": strings.Join(problems, "; ")}))
	}
	return c, nil
}

func anyMap(m map[string]any) any { return m }

// Fixed is a value the overlay fixed, as JSON.
func Fixed(jsonValue string) Value {
	dec := json.NewDecoder(strings.NewReader(jsonValue))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(fmt.Sprintf("mcpkit: fixed value %s is not JSON: %v", jsonValue, err))
	}
	return Value{V: v, Set: true}
}

// Caller returns a value of the caller's context (the overlay's
// server.context: customer_id, tenant), never the model's. When it is not
// available the call fails with a result telling the model the session
// lacks it; the model cannot supply it.
func (c *Call) Caller(name string) Value {
	for i := range c.kit.api.Context {
		cv := &c.kit.api.Context[i]
		if cv.Name != name {
			continue
		}
		v, src, problem := c.lookupContext(cv)
		if src != "" {
			return Value{V: v, Set: true}
		}
		if c.missing == nil {
			c.missing, c.contextProblem = cv, problem
		}
		return Value{}
	}
	panic(fmt.Sprintf("mcpkit: tool %s uses undeclared context value %q", c.tool.Name, name))
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
