// Package lower is the one lowering from the IR to mcpkit, the run-time
// library: each tool becomes the *mcpkit.Tool value the runtime uses and
// the plan of its handler (the requests it builds and, for a confirm tool,
// the calls it makes on its quote). Three consumers read it:
//
//   - render prints the values and the plans as Go (the generated package);
//   - tailor serve (internal/serve) attaches functions performing the
//     plans to the same values and serves them;
//   - the review tools ask mcpkit for the tools/list entry of the same
//     values (cost).
//
// What a tool is at run time is decided here once, so a served tool and a
// generated one are the same tool by construction.
package lower

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/parallel"
	"github.com/tailormcp/tailor/mcpkit"
)

// Server is a lowered tool set.
type Server struct {
	// API is the server's mcpkit.API.
	API   mcpkit.API
	Tools []*Tool
}

// Tool is one lowered tool.
type Tool struct {
	// Def is the tool as the runtime uses it, minus Go functions: each
	// Def.Steps[i].Request is nil, and Steps[i] says what it builds.
	Def *mcpkit.Tool
	// Request is a single-operation tool's request (nil for a composed
	// tool).
	Request *Request
	// Steps are a composed tool's requests, one per Def.Steps element.
	Steps []*Request
	// Reads are a one-operation tool's first reads, one per Def.Reads
	// element.
	Reads []*Request
	// Confirm lists, for a confirm tool, what its handler does with the
	// quote after taking it and before running the steps (nil otherwise).
	Confirm []ConfirmCall
}

// Handler is the kind of handler a tool has.
type Handler int

const (
	// CallHandler builds Request and sends it (c.Do).
	CallHandler Handler = iota
	// StepsHandler runs the steps in order (c.RunSteps).
	StepsHandler
	// ConfirmHandler takes the quote (c.TakeQuote), makes the Confirm
	// calls on it, and runs the steps (Run).
	ConfirmHandler
)

// Handler says which handler t has.
func (t *Tool) Handler() Handler {
	switch {
	case t.Def.Confirms != "":
		return ConfirmHandler
	case len(t.Steps) > 0:
		return StepsHandler
	}
	return CallHandler
}

// ConfirmCall is one call a confirm tool's handler makes on the quote it
// carries out (an *mcpkit.Confirmation) after taking it (Call.TakeQuote)
// and before running the steps (Confirmation.Run); the handler stops at
// the first that returns a result.
type ConfirmCall int

const (
	// Preflight builds every step request that does not need an earlier
	// step's answer, without sending it: a run that cannot start stops
	// before anything is reserved or asked.
	Preflight ConfirmCall = iota
	// Reserve reserves the quote for this call, and asks the person to
	// approve when the tool has an Approval.
	Reserve
)

// Method is the name of the *mcpkit.Confirmation method the call is.
func (c ConfirmCall) Method() string {
	return [...]string{"Preflight", "Reserve"}[c]
}

// Of lowers api.
func Of(api *ir.API) *Server {
	s := &Server{API: OfAPI(api)}
	// Each tool is lowered on its own, on every core, into its place.
	if len(api.Tools) > 0 {
		s.Tools = make([]*Tool, len(api.Tools))
	}
	texts := &schemaTexts{m: map[string]string{}}
	parallel.For(len(api.Tools), func(i int) { s.Tools[i] = ofTool(api.Tools[i], texts) })
	return s
}

// OfAPI lowers what api says of the whole server, not its tools.
func OfAPI(api *ir.API) mcpkit.API {
	a := mcpkit.API{
		Name: OneLine(api.Name), Title: OneLine(api.Title), Version: api.Version, Instructions: api.Instructions,
		EnvPrefix: OneLine(api.EnvPrefix), Messages: api.Messages,
	}
	if len(api.Servers) > 0 {
		a.DefaultBaseURL = OneLine(api.Servers[0])
	}
	for _, sc := range api.Security {
		a.Schemes = append(a.Schemes, mcpkit.Scheme{Name: sc.Name, Kind: mcpkit.SchemeKind(sc.Kind), In: string(sc.In), ParamName: OneLine(sc.ParamName), Env: sc.Env, EnvUser: sc.EnvUser})
	}
	for _, cv := range api.Context {
		a.Context = append(a.Context, mcpkit.ContextValue{Name: cv.Name, Header: cv.Header, Claim: cv.Claim, Env: cv.Env})
	}
	for _, ts := range api.Toolsets {
		a.Toolsets = append(a.Toolsets, mcpkit.Toolset{Name: ts.Name, Description: ts.Description, Default: ts.Default})
	}
	return a
}

// OfTool lowers one tool.
func OfTool(t *ir.Tool) *Tool { return ofTool(t, nil) }

// ofTool lowers one tool, its schemas' text kept once in texts (nil: a
// copy of its own).
func ofTool(t *ir.Tool, texts *schemaTexts) *Tool {
	def := &mcpkit.Tool{
		Name: t.Name, Title: t.Title, Description: t.Description,
		ReadOnly: t.Annotations.ReadOnly, Destructive: t.Annotations.Destructive,
		Idempotent: t.Annotations.Idempotent, OpenWorld: t.Annotations.OpenWorld,
		InputSchema: texts.of(t.InputSchema), OutputSchema: texts.of(t.OutputSchema),
		StrictSchema: texts.of(t.StrictSchema), StrictPlan: texts.of(t.StrictPlan),
		Confirms: t.Confirms, Messages: t.Messages, Scopes: t.Scopes, Toolset: t.Toolset, Writes: t.Writes(),
	}
	lt := &Tool{Def: def}
	if t.Call != nil {
		def.Security, def.Wrap = t.Call.Security, t.Call.Result.Wrap
		lt.Request = request(t.Call)
	}
	for name, v := range t.Defaults {
		if def.Defaults == nil {
			def.Defaults = map[string]string{}
		}
		def.Defaults[name] = string(v)
	}
	if sh := t.Shape; sh != nil {
		def.Keep, def.Drop, def.Text, def.MaxBytes = sh.Keep, sh.Drop, sh.Text, sh.MaxBytes
	}
	for _, r := range t.Errors {
		rule := mcpkit.ErrorRule{Status: r.Status, Text: r.Text}
		for k, v := range r.Body {
			if rule.Body == nil {
				rule.Body = map[string]any{}
			}
			rule.Body[k] = goValue(v)
		}
		def.Errors = append(def.Errors, rule)
	}
	if t.Quote != nil {
		def.Quote = &mcpkit.QuoteSpec{TTLSeconds: t.Quote.TTLSeconds, ConfirmTool: t.Quote.ConfirmTool, Hold: t.Quote.Hold}
	}
	if t.Approval != nil {
		def.Approval = &mcpkit.Approval{Message: t.Approval.Message, Proceed: t.Approval.Proceed, Never: t.Approval.Never}
	}
	for _, st := range t.Steps {
		def.Steps = append(def.Steps, mcpkit.Step{
			Name: st.Name, ForEach: st.ForEach, IdempotencyKey: st.IdempotencyKey,
			ReadOnly: st.Call.Method == "GET" || st.Call.Method == "HEAD",
			Security: st.Call.Security,
		})
		lt.Steps = append(lt.Steps, request(st.Call))
	}
	for _, st := range t.Reads {
		def.Reads = append(def.Reads, mcpkit.Step{Name: st.Name, ReadOnly: true, Security: st.Call.Security})
		lt.Reads = append(lt.Reads, request(st.Call))
	}
	if t.Confirms != "" {
		lt.Confirm = []ConfirmCall{Preflight, Reserve}
	}
	return lt
}

// OneLine replaces line breaks and other control characters with spaces
// in the values generated code prints inside // comments as well as in
// literals. A spec's title, server URL, path, operationId or API key name
// with a line break would otherwise end the comment and put the rest of
// the line into the generated package as Go code that the spec's author
// wrote. None of these values means anything with a line break in it: a
// path or header name containing one cannot even be sent.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// goValue is a JSON value (an error rule's matcher) as a Go value that
// generated code can spell: objects, arrays, text, booleans and null as
// encoding/json decodes them, an integer as an int64, another number as a
// float64; a number no float64 holds stays its text (it never matched: a
// response's numbers are decoded as float64).
func goValue(raw json.RawMessage) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	return numbers(v)
}

func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}
