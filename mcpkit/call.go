package mcpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call is one tool invocation in progress.
type Call struct {
	ctx    context.Context
	req    *mcp.CallToolRequest
	kit    *Kit
	tool   *Tool
	header http.Header // the incoming MCP HTTP request's headers, if any
	// args hold numbers as json.Number so that 64-bit ids reach the backend
	// exactly as the model wrote them.
	args map[string]any
	// token is the verified bearer token's information, if any.
	token *auth.TokenInfo
	// missing names a context value the call needed and did not have.
	missing *ContextValue
	audit   audit
	// step is the composed tool's step being run, for error rules.
	step string
	// sent is the request of a single-operation tool, once sent.
	sent *Request
	// viaParam names the security schemes whose secret a parameter of
	// this call carries (Credential): they are not applied again.
	viaParam map[string]bool
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

// Ctx is the call's Go context (cancelled when the client cancels).
func (c *Call) Ctx() context.Context { return c.ctx }

// newCall decodes and validates the arguments. An invalid call becomes a
// tool result that names the field and what was expected, so the model can
// correct it; it is never a protocol error.
func (k *Kit) newCall(ctx context.Context, req *mcp.CallToolRequest, t *Tool) (*Call, *mcp.CallToolResult) {
	c := &Call{ctx: ctx, req: req, kit: k, tool: t, args: map[string]any{}}
	if req.Extra != nil {
		c.header = req.Extra.Header
		c.token = req.Extra.TokenInfo
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
	for name, d := range t.Defaults {
		if _, given := c.args[name]; !given {
			c.args[name] = Fixed(d).V
		}
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

// Context returns a value of the caller's context. When it is not
// available the call fails with a result telling the model the session
// lacks it; the model cannot supply it.
func (c *Call) Context(name string) Value {
	for i := range c.kit.api.Context {
		cv := &c.kit.api.Context[i]
		if cv.Name != name {
			continue
		}
		if v, ok := c.lookupContext(cv); ok {
			return Value{V: v, Set: true}
		}
		if c.missing == nil {
			c.missing = cv
		}
		return Value{}
	}
	panic(fmt.Sprintf("mcpkit: tool %s uses undeclared context value %q", c.tool.Name, name))
}

// lookupContext resolves a context value from its sources, in order.
func (c *Call) lookupContext(cv *ContextValue) (string, bool) {
	if cv.Header != "" && c.header != nil {
		if v := c.header.Get(cv.Header); v != "" {
			return v, true
		}
	}
	if cv.Claim != "" && c.token != nil {
		if v, ok := claim(c.token, cv.Claim); ok {
			return v, true
		}
	}
	if cv.Env != "" {
		if v := c.kit.cfg.Getenv(cv.Env); v != "" {
			return v, true
		}
	}
	return "", false
}

// missingContext is the result for a call whose caller context lacks a value.
func (c *Call) missingContext() *mcp.CallToolResult {
	cv := c.missing
	var from []string
	if cv.Header != "" {
		from = append(from, "the "+cv.Header+" header of the MCP request")
	}
	if cv.Claim != "" {
		from = append(from, "the "+cv.Claim+" claim of the caller's verified token")
	}
	if cv.Env != "" {
		from = append(from, "the server's "+cv.Env+" setting")
	}
	c.kit.log.Warn("call refused: caller context value missing", "tool", c.tool.Name, "context", cv.Name)
	return errorResult(fmt.Sprintf("This session has no %s: the server takes it from %s, and none was provided, so nothing was sent to the API. It identifies the caller and cannot be given as a tool argument. Tell the user their session is not identified (they may need to sign in again); do not ask them for it or try other tools to get around it.", cv.Name, strings.Join(from, " or ")))
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// claim reads a claim of a verified token; "sub" falls back to the user id.
func claim(t *auth.TokenInfo, name string) (string, bool) {
	if v, ok := t.Extra[name]; ok && v != nil {
		s := fmt.Sprint(v)
		return s, s != ""
	}
	if name == "sub" && t.UserID != "" {
		return t.UserID, true
	}
	return "", false
}
