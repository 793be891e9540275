package lower

import (
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/mcpkit"
)

// A call's request is built by a sequence of mcpkit.Request calls, one per
// parameter or body value: the request's statements. Render prints them as
// the statements of a generated handler (or step builder), tailor serve
// performs them on a live request; Statements decides them once (which
// values are sent, in which order, from where, in which slot, with which
// style), so that the two cannot drift apart.

// Request is one HTTP request a tool makes: a single-operation tool's, or
// one step's of a composed tool.
type Request struct {
	Method string
	// Path is the path template ("/pets/{petId}").
	Path        string
	OperationID string
	Statements  []Statement
}

// Op is the mcpkit.Request method a statement calls.
type Op int

const (
	SetPath      Op = iota // r.Path(name, value, style)
	SetQuery               // r.Query(name, value, style)
	SetHeader              // r.Header(name, value, style)
	SetCookie              // r.Cookie(name, value, style)
	StartBody              // r.Body(kind, content type, required): starts the body
	SetWholeBody           // r.WholeBody(value): the body is one value
	SetField               // r.Field(name, value): a member of a JSON or multipart body
	SetFormField           // r.FormField(name, value, style)
)

// Source is where a statement's value comes from, and so which mcpkit call
// reads it.
type Source int

const (
	FromArg        Source = iota // c.Arg(name): the model's argument
	FromFixed                    // mcpkit.Fixed(json): fixed by the overlay or the spec (one allowed value)
	FromContext                  // c.Caller(name): the caller's context
	FromTemplate                 // s.Value(template): a binding to an earlier step or a quote
	FromCredential               // c.Credential(scheme): a security scheme's configured secret
)

// Value is a statement's value: its source and the argument name, JSON,
// context name, template or scheme name the source needs.
type Value struct {
	From Source
	Text string
}

// Statement is one call on the request being built.
type Statement struct {
	Op    Op
	Name  string // the parameter's or field's name on the wire
	Value Value
	// Style says how a parameter or form field is serialized: one of
	// mcpkit's predefined styles where one fits.
	Style mcpkit.Style
	// BodyKind (mcpkit.JSON, Form, Multipart, Raw), ContentType and
	// Required describe the body (StartBody).
	BodyKind    string
	ContentType string
	Required    bool
}

// request lowers c to the request it makes.
func request(c *ir.Call) *Request {
	return &Request{Method: c.Method, Path: OneLine(c.Path), OperationID: OneLine(c.OperationID), Statements: statements(c)}
}

// statements lowers c to the statements that build its request, in order.
// A parameter or field that has no value (the overlay dropped it) has
// none.
func statements(c *ir.Call) []Statement {
	var out []Statement
	for _, p := range c.Params {
		v, ok := value(p.Arg, p.Source)
		if !ok {
			continue
		}
		op := map[ir.Location]Op{ir.InPath: SetPath, ir.InQuery: SetQuery, ir.InHeader: SetHeader, ir.InCookie: SetCookie}[p.In]
		out = append(out, Statement{Op: op, Name: p.Name, Value: v, Style: style(p.Style, p.Explode, p.JSONContent)})
	}
	b := c.Body
	if b == nil {
		return out
	}
	out = append(out, Statement{Op: StartBody, BodyKind: bodyKind(b.Encoding), ContentType: b.ContentType, Required: b.Required})
	if v, ok := value(b.Arg, b.Source); ok {
		out = append(out, Statement{Op: SetWholeBody, Value: v})
	}
	for _, f := range b.Fields {
		v, ok := value(f.Arg, f.Source)
		if !ok {
			continue
		}
		if b.Encoding == ir.FormBody {
			out = append(out, Statement{Op: SetFormField, Name: f.Name, Value: v, Style: style(f.Style, f.Explode, false)})
			continue
		}
		out = append(out, Statement{Op: SetField, Name: f.Name, Value: v})
	}
	return out
}

// value is where a value comes from: a fixed value, the caller's context
// and a template win over the model's argument; ok is false when there is
// none.
func value(arg string, src ir.ValueSource) (Value, bool) {
	switch {
	case src.Fixed != nil:
		return Value{FromFixed, string(src.Fixed)}, true
	case src.Context != "":
		return Value{FromContext, src.Context}, true
	case src.Template != "":
		return Value{FromTemplate, src.Template}, true
	case src.Credential != "":
		return Value{FromCredential, src.Credential}, true
	case arg != "":
		return Value{FromArg, arg}, true
	}
	return Value{}, false
}

// style is the mcpkit.Style an OpenAPI style, explode and content:
// application/json come to: one of mcpkit's predefined styles when one
// fits (a JSON value ignores the style; no style is simple).
func style(name string, explode, json bool) mcpkit.Style {
	switch {
	case json:
		return mcpkit.JSONValue
	case name == "" || name == "simple" && !explode:
		return mcpkit.Simple
	case name == "simple":
		return mcpkit.SimpleExplode
	case name == "form" && explode:
		return mcpkit.FormStyle
	case name == "form":
		return mcpkit.FormNoExplode
	case name == "deepObject":
		return mcpkit.DeepObject
	}
	return mcpkit.Style{Name: name, Explode: explode}
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
