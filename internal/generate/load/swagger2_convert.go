package load

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tailormcp/tailor/internal/parallel"
)

// convertSwagger2 is openapi2conv.ToV3WithLoader on both cores. The
// conversion, with the $ref resolution it ends with, is one call on one
// core, most of it the paths (kubernetes: 30 ms, the components a sixth of
// it). A component never depends on a path, and a path only reads the
// components, so the paths are cut in two halves by their operations, and
// each half is converted by kin-openapi as a document of its own, beside
// the other: the rest of the document (components included) in both, so
// that each half resolves its $refs. The document is the first half's,
// with the second half's path items added; their $refs are then pointed
// at the first half's components (relink), so that each component is one
// object, as in the whole conversion, which a test compares on every
// Swagger 2.0 spec of the corpus, sharing included.
//
// Small documents, and anything the halves could read differently (a
// $ref to anything but a component, any error), are converted whole by
// kin-openapi with loader, so that its messages are its own. another makes
// a loader configured as loader, for the second half; nil converts whole
// (a spec whose $refs read files: each half would read them again).
func convertSwagger2(doc2 *openapi2.T, loader *openapi3.Loader, another func() *openapi3.Loader, location *url.URL) (*openapi3.T, error) {
	if another != nil {
		if doc, ok := convertInHalves(doc2, [2]*openapi3.Loader{loader, another()}, location, minSplitOperations); ok {
			return doc, nil
		}
		loader = another() // one the halves have not used
	}
	return openapi2conv.ToV3WithLoader(doc2, loader, location)
}

// minSplitOperations is the size below which a document is converted whole:
// a half must be worth a second conversion of the components.
const minSplitOperations = 64

// convertInHalves converts doc2 in two halves, or reports that it did not.
func convertInHalves(doc2 *openapi2.T, loaders [2]*openapi3.Loader, location *url.URL, minOperations int) (doc *openapi3.T, ok bool) {
	first, second := halves(doc2.Paths, minOperations)
	if first == nil || second == nil {
		return nil, false
	}
	halves := [2]openapi2.T{*doc2, *doc2}
	halves[0].Paths, halves[1].Paths = first, second
	if !unshare(&halves[1]) {
		return nil, false
	}
	var docs [2]*openapi3.T
	var errs [2]error
	parallel.For(2, func(i int) {
		docs[i], errs[i] = convertHalf(&halves[i], loaders[i], location)
	})
	if errs[0] != nil || errs[1] != nil {
		return nil, false
	}
	doc = docs[0]
	r := relinker{c: doc.Components, other: docs[1].Components}
	for name, item := range docs[1].Paths.Map() {
		if !r.pathItem(item) {
			return nil, false
		}
		doc.Paths.Set(name, item)
	}
	return doc, true
}

// convertHalf is one half's conversion; a panic (kin-openapi indexes maps
// it assumes well formed) is an error, which sends the document to the
// whole conversion.
func convertHalf(half *openapi2.T, loader *openapi3.Loader, location *url.URL) (doc *openapi3.T, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%v", r)
		}
	}()
	return openapi2conv.ToV3WithLoader(half, loader, location)
}

// halves cuts paths in two, in path order, with about as many operations
// in each; nil when there are fewer than minOperations.
func halves(paths map[string]*openapi2.PathItem, minOperations int) (first, second map[string]*openapi2.PathItem) {
	names := make([]string, 0, len(paths))
	total := 0
	for name, item := range paths {
		names = append(names, name)
		if item != nil {
			total += len(item.Operations())
		}
	}
	if total < minOperations {
		return nil, nil
	}
	sort.Strings(names)
	first, second = map[string]*openapi2.PathItem{}, map[string]*openapi2.PathItem{}
	n := 0
	for _, name := range names {
		item := paths[name]
		if n*2 < total {
			first[name] = item
		} else {
			second[name] = item
		}
		if item != nil {
			n += len(item.Operations())
		}
	}
	if len(first) == 0 || len(second) == 0 {
		return nil, nil
	}
	return first, second
}

// relinker points the resolved $refs of a half's path items at the
// components c of the document they join: the objects each $ref was
// resolved to are that half's own copies (other) of the same components.
// It walks what kin-openapi's resolution walks under a path item
// (stopping at a $ref, whose value is a component's), and fails on a $ref
// it cannot match to a component by name. Resolving a $ref also marks the
// component it reaches with the place it was reached at (its unexported
// refPath, which only a $ref's resolution sets): a component only the
// second half's paths reach gets it from the second half's copy.
type relinker struct {
	c, other *openapi3.Components
}

// adopt gives mine the refPath theirs has, when only theirs has one: the
// whole struct is copied (refPath is unexported), then what mine held is
// put back by restore. The other unexported fields are only set when a
// document is decoded with $ref siblings, never by a conversion.
func adopt[R any](mine, theirs *R, refPath func(*R) *url.URL, restore func(to, from *R)) {
	if theirs == nil || refPath(mine) != nil || refPath(theirs) == nil {
		return
	}
	keep := *mine
	*mine = *theirs
	restore(mine, &keep)
}

// component is the name a $ref gives in c's map of kind, or "" when the
// $ref is anything else.
func component(ref, kind string) string {
	name, ok := strings.CutPrefix(ref, "#/components/"+kind+"/")
	if !ok || name == "" || strings.ContainsAny(name, "/~%") {
		return ""
	}
	return name
}

func (r relinker) pathItem(item *openapi3.PathItem) bool {
	if item == nil {
		return true
	}
	if item.Ref != "" {
		return false
	}
	for _, p := range item.Parameters {
		if !r.parameter(p) {
			return false
		}
	}
	for _, op := range item.Operations() {
		if len(op.Callbacks) > 0 {
			return false
		}
		for _, p := range op.Parameters {
			if !r.parameter(p) {
				return false
			}
		}
		if op.RequestBody != nil && !r.requestBody(op.RequestBody) {
			return false
		}
		for _, resp := range op.Responses.Map() {
			if !r.response(resp) {
				return false
			}
		}
	}
	return true
}

func (r relinker) parameter(p *openapi3.ParameterRef) bool {
	if p == nil {
		return true
	}
	if p.Ref != "" {
		name := component(p.Ref, "parameters")
		c := r.c.Parameters[name]
		if c == nil || c.Value == nil || p.Value == nil {
			return false
		}
		adopt(c, r.other.Parameters[name], (*openapi3.ParameterRef).RefPath, func(to, from *openapi3.ParameterRef) {
			to.Extensions, to.Origin, to.Summary, to.Description, to.Value = from.Extensions, from.Origin, from.Summary, from.Description, from.Value
		})
		p.Value = c.Value
		return true
	}
	if p.Value == nil {
		return true
	}
	return r.schema(p.Value.Schema) && r.content(p.Value.Content)
}

func (r relinker) requestBody(b *openapi3.RequestBodyRef) bool {
	if b.Ref != "" {
		name := component(b.Ref, "requestBodies")
		c := r.c.RequestBodies[name]
		if c == nil || c.Value == nil || b.Value == nil {
			return false
		}
		adopt(c, r.other.RequestBodies[name], (*openapi3.RequestBodyRef).RefPath, func(to, from *openapi3.RequestBodyRef) {
			to.Extensions, to.Origin, to.Summary, to.Description, to.Value = from.Extensions, from.Origin, from.Summary, from.Description, from.Value
		})
		b.Value = c.Value
		return true
	}
	return b.Value == nil || r.content(b.Value.Content)
}

func (r relinker) response(resp *openapi3.ResponseRef) bool {
	if resp == nil {
		return true
	}
	if resp.Ref != "" {
		name := component(resp.Ref, "responses")
		c := r.c.Responses[name]
		if c == nil || c.Value == nil || resp.Value == nil {
			return false
		}
		adopt(c, r.other.Responses[name], (*openapi3.ResponseRef).RefPath, func(to, from *openapi3.ResponseRef) {
			to.Extensions, to.Origin, to.Summary, to.Description, to.Value = from.Extensions, from.Origin, from.Summary, from.Description, from.Value
		})
		resp.Value = c.Value
		return true
	}
	if resp.Value == nil {
		return true
	}
	if len(resp.Value.Links) > 0 {
		return false
	}
	for _, h := range resp.Value.Headers {
		if h == nil {
			continue
		}
		if h.Ref != "" || h.Value != nil && !(r.schema(h.Value.Schema) && r.content(h.Value.Content)) {
			return false
		}
	}
	return r.content(resp.Value.Content)
}

func (r relinker) content(c openapi3.Content) bool {
	for _, mt := range c {
		if mt != nil && !(r.schema(mt.Schema) && r.schema(mt.ItemSchema)) {
			return false
		}
	}
	return true
}

// schema relinks a schema's $refs: those the resolution follows under it
// in an OpenAPI 3.0 document, which is what a conversion makes. A keyword
// only OpenAPI 3.1 has fails (the conversion writes none).
func (r relinker) schema(s *openapi3.SchemaRef) bool {
	if s == nil {
		return true
	}
	if s.Ref != "" {
		name := component(s.Ref, "schemas")
		c := r.c.Schemas[name]
		if c == nil || c.Value == nil || s.Value == nil {
			return false
		}
		adopt(c, r.other.Schemas[name], (*openapi3.SchemaRef).RefPath, func(to, from *openapi3.SchemaRef) {
			to.Extensions, to.Origin, to.Value = from.Extensions, from.Origin, from.Value
		})
		s.Value = c.Value
		return true
	}
	v := s.Value
	if v == nil {
		return true
	}
	if len(v.PrefixItems) > 0 || v.Contains != nil || len(v.PatternProperties) > 0 || len(v.DependentSchemas) > 0 ||
		len(v.Defs) > 0 || v.PropertyNames != nil || v.UnevaluatedItems.Schema != nil || v.UnevaluatedProperties.Schema != nil ||
		v.If != nil || v.Then != nil || v.Else != nil || v.Discriminator != nil && len(v.Discriminator.Mapping) > 0 {
		return false
	}
	if !r.schema(v.Items) || !r.schema(v.AdditionalProperties.Schema) || !r.schema(v.Not) {
		return false
	}
	for _, p := range v.Properties {
		if !r.schema(p) {
			return false
		}
	}
	for _, list := range [][]*openapi3.SchemaRef{v.AllOf, v.AnyOf, v.OneOf} {
		for _, x := range list {
			if !r.schema(x) {
				return false
			}
		}
	}
	return true
}

// unshare makes doc2's shared parts (what both halves convert: the
// definitions, parameters and responses) safe to convert twice at once.
// kin-openapi's 2.0 types hold an additionalProperties schema as an
// OpenAPI 3 schema, and the conversion puts its parts into the document it
// makes as they are, where the $ref resolution writes into them, and the
// conversion of a formData parameter writes into its extensions: each
// half needs copies of its own. Only the objects on the way to those are
// copied. False when such a schema uses a keyword of OpenAPI 3.1 only,
// which a copy could miss.
func unshare(doc2 *openapi2.T) bool {
	ok := true
	unshared := func(s *openapi2.SchemaRef) *openapi2.SchemaRef {
		t, fine := unsharedSchema(s)
		ok = ok && fine
		return t
	}
	param := func(p *openapi2.Parameter) *openapi2.Parameter {
		if p == nil {
			return p
		}
		schema, items := unshared(p.Schema), unshared(p.Items)
		if schema == p.Schema && items == p.Items && p.In != "formData" {
			return p
		}
		c := *p
		c.Schema, c.Items = schema, items
		if p.In == "formData" {
			// Its conversion writes its name into its extensions.
			c.Extensions = maps.Clone(p.Extensions)
		}
		return &c
	}
	doc2.Definitions = cloneChanged(doc2.Definitions, unshared)
	doc2.Parameters = cloneChanged(doc2.Parameters, param)
	doc2.Responses = cloneChanged(doc2.Responses, func(r *openapi2.Response) *openapi2.Response {
		if r == nil {
			return r
		}
		schema := unshared(r.Schema)
		headers := cloneChanged(r.Headers, func(h *openapi2.Header) *openapi2.Header {
			if h == nil {
				return h
			}
			if p := param(&h.Parameter); p != &h.Parameter {
				return &openapi2.Header{Parameter: *p}
			}
			return h
		})
		if schema == r.Schema && maps.Equal(headers, r.Headers) {
			return r
		}
		c := *r
		c.Schema, c.Headers = schema, headers
		return &c
	})
	return ok
}

// cloneChanged is m, or a copy of it with each value v as f(v) when f
// changed any.
func cloneChanged[M ~map[string]V, V comparable](m M, f func(V) V) M {
	var out M
	for k, v := range m {
		if w := f(v); w != v {
			if out == nil {
				out = maps.Clone(m)
			}
			out[k] = w
		}
	}
	if out == nil {
		return m
	}
	return out
}

// unsharedSchema is s, or a copy of the objects from s down to every
// additionalProperties schema under it, each of those copied whole
// (cloneSchema3).
func unsharedSchema(s *openapi2.SchemaRef) (*openapi2.SchemaRef, bool) {
	if s == nil || s.Value == nil {
		return s, true
	}
	v, ok := s.Value, true
	sub := func(x *openapi2.SchemaRef) *openapi2.SchemaRef {
		y, fine := unsharedSchema(x)
		ok = ok && fine
		return y
	}
	items, not := sub(v.Items), sub(v.Not)
	props := cloneChanged(v.Properties, sub)
	var allOf openapi2.SchemaRefs
	for i, x := range v.AllOf {
		if y := sub(x); y != x {
			if allOf == nil {
				allOf = slices.Clone(v.AllOf)
			}
			allOf[i] = y
		}
	}
	ap := v.AdditionalProperties.Schema
	if items == v.Items && not == v.Not && maps.Equal(props, v.Properties) && allOf == nil && ap == nil {
		return s, ok
	}
	c := *v
	c.Items, c.Not, c.Properties = items, not, props
	if allOf != nil {
		c.AllOf = allOf
	}
	if ap != nil {
		var fine bool
		c.AdditionalProperties.Schema, fine = cloneSchema3(ap)
		ok = ok && fine
	}
	r := *s
	r.Value = &c
	return &r, ok
}

// cloneSchema3 copies an OpenAPI 3 schema and every schema under it that
// the conversion or the resolution reaches; false when it uses a keyword
// of OpenAPI 3.1 only.
func cloneSchema3(s *openapi3.SchemaRef) (*openapi3.SchemaRef, bool) {
	if s == nil {
		return nil, true
	}
	c := *s
	if s.Value == nil {
		return &c, true
	}
	v := *s.Value
	if len(v.PrefixItems) > 0 || v.Contains != nil || len(v.PatternProperties) > 0 || len(v.DependentSchemas) > 0 ||
		len(v.Defs) > 0 || v.PropertyNames != nil || v.UnevaluatedItems.Schema != nil || v.UnevaluatedProperties.Schema != nil ||
		v.If != nil || v.Then != nil || v.Else != nil || v.Discriminator != nil && len(v.Discriminator.Mapping) > 0 {
		return nil, false
	}
	ok := true
	one := func(x *openapi3.SchemaRef) *openapi3.SchemaRef {
		y, fine := cloneSchema3(x)
		ok = ok && fine
		return y
	}
	list := func(xs openapi3.SchemaRefs) openapi3.SchemaRefs {
		if xs == nil {
			return nil
		}
		ys := make(openapi3.SchemaRefs, len(xs))
		for i, x := range xs {
			ys[i] = one(x)
		}
		return ys
	}
	v.Items, v.Not, v.AdditionalProperties.Schema = one(v.Items), one(v.Not), one(v.AdditionalProperties.Schema)
	v.AllOf, v.AnyOf, v.OneOf = list(v.AllOf), list(v.AnyOf), list(v.OneOf)
	if v.Properties != nil {
		v.Properties = make(openapi3.Schemas, len(s.Value.Properties))
		for k, x := range s.Value.Properties {
			v.Properties[k] = one(x)
		}
	}
	c.Value = &v
	return &c, ok
}
