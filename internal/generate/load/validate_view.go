package load

import (
	"maps"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// validationView is what strict validation checks: doc, except that in its
// operations every reference to a component schema points at an empty
// stand-in. kin-openapi validates a referenced schema again for every
// operation that refers to it (its visited set lives for one call): stripe's
// few large component schemas were validated once per operation, 84 % of
// the 1.3 s of CPU validation took. A schema's validity does not depend on
// where it is used, and doc.Components are validated in full, so each
// component schema is now checked once, and a mistake in one is reported
// once, at the component, instead of once per operation. Inline schemas,
// and references to other files, are validated where they are, as before.
//
// The view shares everything else with doc and never writes to it: the
// other stages read doc while validation runs.
func validationView(doc *openapi3.T) *openapi3.T {
	if doc.Paths == nil || doc.Components == nil || len(doc.Components.Schemas) == 0 {
		return doc
	}
	v := &viewer{schemas: doc.Components.Schemas,
		blank:     map[*openapi3.Schema]*openapi3.Schema{},
		responses: map[*openapi3.Response]*openapi3.Response{},
		bodies:    map[*openapi3.RequestBody]*openapi3.RequestBody{},
		params:    map[*openapi3.Parameter]*openapi3.Parameter{},
	}
	view := *doc
	view.Paths = openapi3.NewPathsWithCapacity(doc.Paths.Len())
	view.Paths.Extensions, view.Paths.Origin = doc.Paths.Extensions, doc.Paths.Origin
	for path, item := range doc.Paths.Map() {
		view.Paths.Set(path, v.pathItem(item))
	}
	return &view
}

type viewer struct {
	schemas openapi3.Schemas
	// The view of a value the spec shares is made once and shared the same
	// way: a component response, request body or parameter that 50,000
	// operations refer to is one copy, not 50,000 (each $ref is a reference
	// of its own in kin-openapi's document, its Value the one component),
	// and every reference to a component schema stands in with one empty
	// schema of that component's.
	blank     map[*openapi3.Schema]*openapi3.Schema
	responses map[*openapi3.Response]*openapi3.Response
	bodies    map[*openapi3.RequestBody]*openapi3.RequestBody
	params    map[*openapi3.Parameter]*openapi3.Parameter
}

// stub is ref, or a stand-in for it when it names a component schema.
func (v *viewer) stub(ref *openapi3.SchemaRef) *openapi3.SchemaRef {
	if ref == nil || ref.Value == nil {
		return ref
	}
	name, ok := strings.CutPrefix(ref.Ref, "#/components/schemas/")
	if !ok || strings.Contains(name, "/") {
		return ref
	}
	if c := v.schemas[name]; c == nil || c.Value != ref.Value {
		return ref
	}
	blank := v.blank[ref.Value]
	if blank == nil {
		blank = &openapi3.Schema{}
		v.blank[ref.Value] = blank
	}
	s := *ref
	s.Value = blank
	return &s
}

func (v *viewer) pathItem(item *openapi3.PathItem) *openapi3.PathItem {
	if item == nil {
		return nil
	}
	out := *item
	out.Parameters = v.parameters(item.Parameters)
	if item.AdditionalOperations != nil {
		out.AdditionalOperations = maps.Clone(item.AdditionalOperations)
	}
	for method, op := range item.Operations() {
		out.SetOperation(method, v.operation(op))
	}
	return &out
}

func (v *viewer) operation(op *openapi3.Operation) *openapi3.Operation {
	if op == nil {
		return nil
	}
	out := *op
	out.Parameters = v.parameters(op.Parameters)
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		r := *rb
		r.Value = v.body(rb.Value)
		out.RequestBody = &r
	}
	if op.Responses.Len() > 0 {
		out.Responses = openapi3.NewResponsesWithCapacity(op.Responses.Len())
		out.Responses.Extensions, out.Responses.Origin = op.Responses.Extensions, op.Responses.Origin
		for code, rr := range op.Responses.Map() {
			if rr != nil && rr.Value != nil {
				r := *rr
				r.Value = v.response(rr.Value)
				rr = &r
			}
			out.Responses.Set(code, rr)
		}
	}
	return &out
}

func (v *viewer) parameters(ps openapi3.Parameters) openapi3.Parameters {
	if ps == nil {
		return nil
	}
	out := make(openapi3.Parameters, len(ps))
	for i, pr := range ps {
		if pr != nil && pr.Value != nil {
			r := *pr
			r.Value = v.parameter(pr.Value)
			pr = &r
		}
		out[i] = pr
	}
	return out
}

func (v *viewer) body(b *openapi3.RequestBody) *openapi3.RequestBody {
	if cp, ok := v.bodies[b]; ok {
		return cp
	}
	cp := *b
	cp.Content = v.content(b.Content)
	v.bodies[b] = &cp
	return &cp
}

func (v *viewer) response(r *openapi3.Response) *openapi3.Response {
	if cp, ok := v.responses[r]; ok {
		return cp
	}
	cp := *r
	cp.Content = v.content(r.Content)
	v.responses[r] = &cp
	return &cp
}

func (v *viewer) parameter(p *openapi3.Parameter) *openapi3.Parameter {
	if cp, ok := v.params[p]; ok {
		return cp
	}
	cp := *p
	cp.Schema = v.stub(p.Schema)
	cp.Content = v.content(p.Content)
	v.params[p] = &cp
	return &cp
}

func (v *viewer) content(c openapi3.Content) openapi3.Content {
	if c == nil {
		return nil
	}
	out := make(openapi3.Content, len(c))
	for mime, mt := range c {
		if mt != nil {
			m := *mt
			m.Schema = v.stub(mt.Schema)
			mt = &m
		}
		out[mime] = mt
	}
	return out
}
