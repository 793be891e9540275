// Package serve runs a tool set straight from its IR, without generating
// code: `tailor serve` uses it to try a spec and overlay in an MCP client
// before committing generated files.
//
// It serves the values internal/generate/lower makes of the IR, the ones
// render prints, and attaches to them functions that perform the lowered
// plans: the mcpkit calls each generated handler makes. So a served tool
// and a generated one build the same requests and return the same
// results; the e2e tests run the same scenarios against both.
package serve

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/lower"
	"github.com/tailormcp/tailor/mcpkit"
)

// API converts the IR into the description mcpkit serves, and the function
// that registers its tools.
func API(api *ir.API) (mcpkit.API, mcpkit.Register) {
	return Lowered(lower.Of(api))
}

// Lowered is API for a tool set already lowered (Compile's); it attaches
// the handlers to s's tools.
func Lowered(s *lower.Server) (mcpkit.API, mcpkit.Register) {
	handlers := make([]mcpkit.Handler, len(s.Tools))
	for i, t := range s.Tools {
		for j, req := range t.Steps {
			req := req
			t.Def.Steps[j].Request = func(c *mcpkit.Call, s *mcpkit.Scope) *mcpkit.Request { return build(c, s, req) }
		}
		for j, req := range t.Reads {
			req := req
			t.Def.Reads[j].Request = func(c *mcpkit.Call, s *mcpkit.Scope) *mcpkit.Request { return build(c, s, req) }
		}
		handlers[i] = handler(t)
	}
	return s.API, func(srv *mcp.Server, k *mcpkit.Runtime) {
		for i, t := range s.Tools {
			k.AddTool(srv, t.Def, handlers[i])
		}
	}
}

// handler is the generated handler of t, as a function.
func handler(t *lower.Tool) mcpkit.Handler {
	switch t.Handler() {
	case lower.StepsHandler:
		return func(c *mcpkit.Call) *mcp.CallToolResult { return c.RunSteps() }
	case lower.ConfirmHandler:
		calls := t.Confirm
		return func(c *mcpkit.Call) *mcp.CallToolResult {
			q, res := c.TakeQuote()
			if res != nil {
				return res
			}
			for _, call := range calls {
				if res := confirmCalls[call](q); res != nil {
					return res
				}
			}
			return q.Run()
		}
	}
	req := t.Request
	if q := t.Def.Quote; q != nil && q.Hold {
		return func(c *mcpkit.Call) *mcp.CallToolResult { return c.Hold(build(c, nil, req)) }
	}
	return func(c *mcpkit.Call) *mcp.CallToolResult { return c.Do(build(c, nil, req)) }
}

// confirmCalls are the methods lower.ConfirmCall names.
var confirmCalls = map[lower.ConfirmCall]func(*mcpkit.Confirmation) *mcp.CallToolResult{
	lower.Preflight: (*mcpkit.Confirmation).Preflight,
	lower.Reserve:   (*mcpkit.Confirmation).Reserve,
}

// build makes a request: its lowered statements performed, as a generated
// handler's statements perform them.
func build(c *mcpkit.Call, s *mcpkit.Scope, req *lower.Request) *mcpkit.Request {
	r := c.Request(req.Method, req.Path)
	for _, st := range req.Statements {
		v := value(c, s, st.Value)
		switch st.Op {
		case lower.SetPath:
			r.Path(st.Name, v, st.Style)
		case lower.SetQuery:
			r.Query(st.Name, v, st.Style)
		case lower.SetHeader:
			r.Header(st.Name, v, st.Style)
		case lower.SetCookie:
			r.Cookie(st.Name, v, st.Style)
		case lower.StartBody:
			r.Body(st.BodyKind, st.ContentType, st.Required)
		case lower.SetWholeBody:
			r.WholeBody(v)
		case lower.SetFormField:
			r.FormField(st.Name, v, st.Style)
		case lower.SetField:
			r.Field(st.Name, v)
		}
	}
	return r
}

// value reads a statement's value.
func value(c *mcpkit.Call, s *mcpkit.Scope, v lower.Value) mcpkit.Value {
	switch v.From {
	case lower.FromFixed:
		return mcpkit.Fixed(v.Text)
	case lower.FromContext:
		return c.Caller(v.Text)
	case lower.FromTemplate:
		return s.Value(v.Text)
	case lower.FromCredential:
		return c.Credential(v.Text)
	}
	return c.Arg(v.Text)
}
