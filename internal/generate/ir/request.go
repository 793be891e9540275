package ir

// A call's request is built by a sequence of mcpkit.Request calls, one per
// parameter or body value. Two consumers need that sequence: render prints
// it as the statements of a generated handler, and tailor serve performs it
// on a live request. RequestSteps decides it once (which values are sent,
// in which order, from where, in which slot), so that the two cannot drift
// apart; each consumer only translates a step into a statement or a call.

// StepKind is the mcpkit.Request method a step calls.
type StepKind int

const (
	PathStep      StepKind = iota // r.Path(name, value, style)
	QueryStep                     // r.Query(name, value, style)
	HeaderStep                    // r.Header(name, value, style)
	CookieStep                    // r.Cookie(name, value, style)
	BodyStep                      // r.Body(encoding, content type, required): starts the body
	WholeBodyStep                 // r.WholeBody(value): the body is one value
	FieldStep                     // r.Field(name, value): a member of a JSON or multipart body
	FormFieldStep                 // r.FormField(name, value, style)
)

// ValueKind is where a step's value comes from, and so which mcpkit call
// reads it.
type ValueKind int

const (
	FromArg        ValueKind = iota // c.Arg(name): the model's argument
	FromFixed                       // mcpkit.Fixed(json): fixed by the overlay or the spec (one allowed value)
	FromContext                     // c.Context(name): the caller's context
	FromTemplate                    // s.Value(template): a binding to an earlier step or a quote
	FromCredential                  // c.Credential(scheme): a security scheme's configured secret
)

// StepValue is a step's value: its kind and the argument name, JSON,
// context name, template or scheme name the kind needs.
type StepValue struct {
	Kind ValueKind
	Text string
}

// RequestStep is one statement that builds a request.
type RequestStep struct {
	Kind  StepKind
	Name  string // the parameter's or field's name on the wire
	Value StepValue
	// Style, Explode and JSON say how a parameter or form field is
	// serialized (OpenAPI's rules; JSON for `content: application/json`).
	Style   string
	Explode bool
	JSON    bool
	// Encoding, ContentType and Required describe the body (BodyStep).
	Encoding    BodyEncoding
	ContentType string
	Required    bool
}

// RequestSteps lowers c to the statements that build its request, in
// order. A parameter or field that has no value (the overlay dropped it) has
// no step.
func (c *Call) RequestSteps() []RequestStep {
	var out []RequestStep
	for _, p := range c.Params {
		v, ok := stepValue(p.Arg, p.Source)
		if !ok {
			continue
		}
		kind := map[Location]StepKind{InPath: PathStep, InQuery: QueryStep, InHeader: HeaderStep, InCookie: CookieStep}[p.In]
		out = append(out, RequestStep{Kind: kind, Name: p.Name, Value: v, Style: p.Style, Explode: p.Explode, JSON: p.JSONContent})
	}
	b := c.Body
	if b == nil {
		return out
	}
	out = append(out, RequestStep{Kind: BodyStep, Encoding: b.Encoding, ContentType: b.ContentType, Required: b.Required})
	if v, ok := stepValue(b.Arg, b.Source); ok {
		out = append(out, RequestStep{Kind: WholeBodyStep, Value: v})
	}
	for _, f := range b.Fields {
		v, ok := stepValue(f.Arg, f.Source)
		if !ok {
			continue
		}
		if b.Encoding == FormBody {
			out = append(out, RequestStep{Kind: FormFieldStep, Name: f.Name, Value: v, Style: f.Style, Explode: f.Explode})
			continue
		}
		out = append(out, RequestStep{Kind: FieldStep, Name: f.Name, Value: v})
	}
	return out
}

// stepValue is where a value comes from: a fixed value, the caller's
// context and a template win over the model's argument; ok is false when
// there is none.
func stepValue(arg string, src ValueSource) (StepValue, bool) {
	switch {
	case src.Fixed != nil:
		return StepValue{FromFixed, string(src.Fixed)}, true
	case src.Context != "":
		return StepValue{FromContext, src.Context}, true
	case src.Template != "":
		return StepValue{FromTemplate, src.Template}, true
	case src.Credential != "":
		return StepValue{FromCredential, src.Credential}, true
	case arg != "":
		return StepValue{FromArg, arg}, true
	}
	return StepValue{}, false
}
