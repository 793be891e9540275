// Package serve runs a tool set straight from its IR, without generating
// code: `tailor serve` uses it to try a spec and overlay in an MCP client
// before committing generated files.
//
// It makes the same mcpkit calls the generated code makes — the render
// stage prints them as Go, this package performs them — so a served tool
// and a generated one build the same requests and return the same results.
// The e2e tests run the same scenarios against both.
package serve

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/mcpkit"
)

// API converts the IR into the description mcpkit serves, and the function
// that registers its tools.
func API(api *ir.API) (mcpkit.API, mcpkit.Register) {
	out := mcpkit.API{
		Name: api.Name, Title: api.Title, Version: api.Version, Instructions: api.Instructions,
		EnvPrefix: api.EnvPrefix, Messages: api.Messages,
	}
	if len(api.Servers) > 0 {
		out.DefaultBaseURL = api.Servers[0]
	}
	for _, s := range api.Security {
		out.Schemes = append(out.Schemes, mcpkit.Scheme{Name: s.Name, Kind: mcpkit.SchemeKind(s.Kind), In: string(s.In), ParamName: s.ParamName, Env: s.Env, EnvUser: s.EnvUser})
	}
	for _, cv := range api.Context {
		out.Context = append(out.Context, mcpkit.ContextValue{Name: cv.Name, Header: cv.Header, Claim: cv.Claim, Env: cv.Env})
	}
	type entry struct {
		tool    *mcpkit.Tool
		handler mcpkit.Handler
	}
	var entries []entry
	for _, t := range api.Tools {
		mt := tool(t)
		entries = append(entries, entry{mt, handler(t)})
	}
	return out, func(s *mcp.Server, k *mcpkit.Kit) {
		for _, e := range entries {
			k.AddTool(s, e.tool, e.handler)
		}
	}
}

// tool is the mcpkit.Tool the generated tools.go would declare.
func tool(t *ir.Tool) *mcpkit.Tool {
	mt := &mcpkit.Tool{
		Name: t.Name, Title: t.Title, Description: t.Description,
		ReadOnly: t.Annotations.ReadOnly, Destructive: t.Annotations.Destructive,
		Idempotent: t.Annotations.Idempotent, OpenWorld: t.Annotations.OpenWorld,
		InputSchema: string(t.InputSchema), OutputSchema: string(t.OutputSchema),
		Confirms: t.Confirms, Messages: t.Messages,
	}
	if t.Call != nil {
		mt.Security, mt.Wrap = t.Call.Security, t.Call.Result.Wrap
	}
	for name, v := range t.Defaults {
		if mt.Defaults == nil {
			mt.Defaults = map[string]string{}
		}
		mt.Defaults[name] = string(v)
	}
	if sh := t.Shape; sh != nil {
		mt.Keep, mt.Drop, mt.Text, mt.MaxBytes = sh.Keep, sh.Drop, sh.Text, sh.MaxBytes
	}
	for _, r := range t.Errors {
		rule := mcpkit.ErrorRule{Status: r.Status, Text: r.Text}
		for k, v := range r.Body {
			if rule.Body == nil {
				rule.Body = map[string]string{}
			}
			rule.Body[k] = string(v)
		}
		mt.Errors = append(mt.Errors, rule)
	}
	if t.Quote != nil {
		mt.Quote = &mcpkit.QuoteSpec{TTLSeconds: t.Quote.TTLSeconds, ConfirmTool: t.Quote.ConfirmTool}
	}
	if t.Approval != nil {
		mt.Approval = &mcpkit.Approval{Message: t.Approval.Message, Proceed: t.Approval.Proceed}
	}
	for _, st := range t.Steps {
		call := st.Call
		mt.Steps = append(mt.Steps, mcpkit.Step{
			Name: st.Name, ForEach: st.ForEach, IdempotencyKey: st.IdempotencyKey,
			ReadOnly: call.Method == http.MethodGet || call.Method == http.MethodHead,
			Security: call.Security,
			Build: func(c *mcpkit.Call, s *mcpkit.Scope) *mcpkit.Request {
				return build(c, s, call)
			},
		})
	}
	return mt
}

func handler(t *ir.Tool) mcpkit.Handler {
	if len(t.Steps) > 0 {
		return func(c *mcpkit.Call) *mcp.CallToolResult { return c.RunSteps() }
	}
	call := t.Call
	return func(c *mcpkit.Call) *mcp.CallToolResult { return c.Do(build(c, nil, call)) }
}

// build makes the request of one call: ir.RequestSteps performed, as a
// generated handler's statements perform them.
func build(c *mcpkit.Call, s *mcpkit.Scope, call *ir.Call) *mcpkit.Request {
	r := c.Request(call.Method, call.Path)
	for _, st := range call.RequestSteps() {
		v := value(c, s, st.Value)
		style := mcpkit.Style{Name: st.Style, Explode: st.Explode, JSON: st.JSON}
		switch st.Kind {
		case ir.PathStep:
			r.Path(st.Name, v, style)
		case ir.QueryStep:
			r.Query(st.Name, v, style)
		case ir.HeaderStep:
			r.Header(st.Name, v, style)
		case ir.CookieStep:
			r.Cookie(st.Name, v, style)
		case ir.BodyStep:
			r.Body(bodyKind(st.Encoding), st.ContentType, st.Required)
		case ir.WholeBodyStep:
			r.WholeBody(v)
		case ir.FormFieldStep:
			r.FormField(st.Name, v, mcpkit.Style{Name: st.Style, Explode: st.Explode})
		case ir.FieldStep:
			r.Field(st.Name, v)
		}
	}
	return r
}

// value reads a step's value.
func value(c *mcpkit.Call, s *mcpkit.Scope, v ir.StepValue) mcpkit.Value {
	switch v.Kind {
	case ir.FromFixed:
		return mcpkit.Fixed(v.Text)
	case ir.FromContext:
		return c.Context(v.Text)
	case ir.FromTemplate:
		return s.Value(v.Text)
	case ir.FromCredential:
		return c.Credential(v.Text)
	}
	return c.Arg(v.Text)
}

func bodyKind(e ir.BodyEncoding) string {
	switch e {
	case ir.FormBody:
		return mcpkit.Form
	case ir.MultipartBody:
		return mcpkit.Multipart
	case ir.RawBody:
		return mcpkit.Raw
	}
	return mcpkit.JSON
}
