package load

import (
	"context"
	"maps"
	"slices"
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
//
// When every component schema is valid (cleanSchemas), the view's
// components are stand-ins too: their checks are already done.
func validationView(ctx context.Context, doc *openapi3.T) *openapi3.T {
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
	if probeSchemas && cleanSchemas(ctx, doc) {
		v.deep = map[*openapi3.Schema]*openapi3.Schema{}
		components := *doc.Components
		components.Schemas = make(openapi3.Schemas, len(doc.Components.Schemas))
		for name, ref := range doc.Components.Schemas {
			stand := *ref
			stand.Value = &openapi3.Schema{}
			components.Schemas[name] = &stand
		}
		view.Components = &components
	}
	view.Paths = openapi3.NewPathsWithCapacity(doc.Paths.Len())
	view.Paths.Extensions, view.Paths.Origin = doc.Paths.Extensions, doc.Paths.Origin
	for path, item := range doc.Paths.Map() {
		view.Paths.Set(path, v.pathItem(item))
	}
	return &view
}

// probeSchemas turns cleanSchemas on; its test compares with it off.
var probeSchemas = true

// cleanSchemas reports whether every component schema passes validation,
// checked in one pass: kin-openapi validates each component with a visited
// set of its own, so a component is checked again inside every component
// that refers to it, near everything inside everything on a spec of
// cross-linked objects (stripe). Validated as the members of one allOf,
// they share the set and each schema is checked once. Each schema's checks
// are its own (none depends on where it is used or which schema came
// first), so the one pass finds a problem exactly when some component,
// validated alone, would; the first pass that fails is not used further:
// the components are then validated one by one, as before, for messages
// that name each.
func cleanSchemas(ctx context.Context, doc *openapi3.T) bool {
	names := slices.Sorted(maps.Keys(doc.Components.Schemas))
	all := &openapi3.Schema{AllOf: make(openapi3.SchemaRefs, 0, len(names))}
	for _, name := range names {
		ref := doc.Components.Schemas[name]
		if ref == nil || ref.Value == nil {
			return false
		}
		all.AllOf = append(all.AllOf, &openapi3.SchemaRef{Value: ref.Value})
	}
	var opts []openapi3.ValidationOption
	if doc.IsOpenAPI31OrLater() {
		opts = append(opts, openapi3.IsOpenAPI31OrLater())
	}
	if doc.IsOpenAPI32OrLater() {
		opts = append(opts, openapi3.IsOpenAPI32OrLater())
	}
	return all.Validate(ctx, opts...) == nil
}

type viewer struct {
	schemas openapi3.Schemas
	// deep, when the components are known valid, holds each inline schema
	// looked at so far as the view has it (a copy, or the schema itself
	// when nothing under it changed): a reference to a component anywhere
	// in an operation's schemas is then a stand-in, since whatever
	// kin-openapi would find under it, it already did not.
	deep map[*openapi3.Schema]*openapi3.Schema
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

// schema is an operation's schema as validation sees it. Values are
// validated against all of a schema, what its references lead to
// included: the examples beside it (valued), and a default or an example
// in it (3.1 validates those). What such a value is checked against is
// left whole. A schema is copied only when something under it is a
// stand-in; one without is validated as it is (stripe: most inline
// schemas, and a copy of each was 11 MB beside the other stages).
func (v *viewer) schema(ref *openapi3.SchemaRef, valued bool) *openapi3.SchemaRef {
	if v.deep == nil || valued || ref == nil || ref.Value == nil {
		return v.stub(ref)
	}
	if s := v.stub(ref); s != ref {
		return s
	}
	orig := ref.Value
	if orig.Default != nil || orig.Example != nil {
		return ref
	}
	if cp, ok := v.deep[orig]; ok {
		if cp == orig {
			return ref
		}
		out := *ref
		out.Value = cp
		return &out
	}
	// While its parts are looked at, a cycle back to the schema reads it
	// as it is.
	v.deep[orig] = orig
	var cp *openapi3.Schema
	changed := func() *openapi3.Schema {
		if cp == nil {
			c := *orig
			cp = &c
		}
		return cp
	}
	one := func(r *openapi3.SchemaRef, set func(*openapi3.Schema, *openapi3.SchemaRef)) {
		if nr := v.schema(r, false); nr != r {
			set(changed(), nr)
		}
	}
	list := func(rs openapi3.SchemaRefs, set func(*openapi3.Schema, openapi3.SchemaRefs)) {
		var out openapi3.SchemaRefs
		for i, r := range rs {
			if nr := v.schema(r, false); nr != r {
				if out == nil {
					out = slices.Clone(rs)
				}
				out[i] = nr
			}
		}
		if out != nil {
			set(changed(), out)
		}
	}
	named := func(m openapi3.Schemas, set func(*openapi3.Schema, openapi3.Schemas)) {
		var out openapi3.Schemas
		for k, r := range m {
			if nr := v.schema(r, false); nr != r {
				if out == nil {
					out = maps.Clone(m)
				}
				out[k] = nr
			}
		}
		if out != nil {
			set(changed(), out)
		}
	}
	named(orig.Properties, func(s *openapi3.Schema, m openapi3.Schemas) { s.Properties = m })
	named(orig.PatternProperties, func(s *openapi3.Schema, m openapi3.Schemas) { s.PatternProperties = m })
	named(orig.DependentSchemas, func(s *openapi3.Schema, m openapi3.Schemas) { s.DependentSchemas = m })
	named(orig.Defs, func(s *openapi3.Schema, m openapi3.Schemas) { s.Defs = m })
	list(orig.AllOf, func(s *openapi3.Schema, rs openapi3.SchemaRefs) { s.AllOf = rs })
	list(orig.AnyOf, func(s *openapi3.Schema, rs openapi3.SchemaRefs) { s.AnyOf = rs })
	list(orig.OneOf, func(s *openapi3.Schema, rs openapi3.SchemaRefs) { s.OneOf = rs })
	list(orig.PrefixItems, func(s *openapi3.Schema, rs openapi3.SchemaRefs) { s.PrefixItems = rs })
	one(orig.Items, func(s *openapi3.Schema, r *openapi3.SchemaRef) { s.Items = r })
	one(orig.Not, func(s *openapi3.Schema, r *openapi3.SchemaRef) { s.Not = r })
	one(orig.AdditionalProperties.Schema, func(s *openapi3.Schema, r *openapi3.SchemaRef) { s.AdditionalProperties.Schema = r })
	one(orig.Contains, func(s *openapi3.Schema, r *openapi3.SchemaRef) { s.Contains = r })
	one(orig.PropertyNames, func(s *openapi3.Schema, r *openapi3.SchemaRef) { s.PropertyNames = r })
	one(orig.If, func(s *openapi3.Schema, r *openapi3.SchemaRef) { s.If = r })
	one(orig.Then, func(s *openapi3.Schema, r *openapi3.SchemaRef) { s.Then = r })
	one(orig.Else, func(s *openapi3.Schema, r *openapi3.SchemaRef) { s.Else = r })
	one(orig.ContentSchema, func(s *openapi3.Schema, r *openapi3.SchemaRef) { s.ContentSchema = r })
	if cp == nil {
		return ref
	}
	v.deep[orig] = cp
	out := *ref
	out.Value = cp
	return &out
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
	cp.Schema = v.schema(p.Schema, p.Example != nil || len(p.Examples) > 0)
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
			m.Schema = v.schema(mt.Schema, mt.Example != nil || len(mt.Examples) > 0)
			mt = &m
		}
		out[mime] = mt
	}
	return out
}
