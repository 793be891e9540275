package load

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tailormcp/tailor/internal/jsonv"
)

// Large specs write the same small schema again and again: stripe has
// 10,500 inline schemas without subschemas ({type: string, maxLength:
// 5000}, an enum of statuses, ...), of which 2,500 differ, and kin-openapi
// decodes each into its own 750-byte Schema. The loader makes the places
// that write the same such schema share one value: 6 MB less document for
// the load and every stage after it, which set the generator's peak. A
// spec read in pieces (stream.go) shares as each piece is decoded, so
// that the copies never pile up; one read whole, once it is decoded.
//
// Sharing is safe only where nothing tells the copies apart:
//   - a schema a $ref points at is never shared (the converter names a
//     component after its value), nor a component's own schema. The
//     pieces are shared before their $refs are resolved: when one turns
//     out to point at a shared leaf, the spec is read again whole;
//   - a schema with a default or a pattern is not: the converter warns
//     about those at the schema's place (places.go), and a shared value
//     is placed at one of its places;
//   - nor one with an origin (a place of its own), or with any keyword
//     beyond the plain ones leafKey spells: what the key does not spell
//     is not shared.
//
// The stages after the load only read the document (the validation view
// copies what it changes), so a shared value is never written through one
// of its places.

// interner shares equal leaf schemas between their places, as the
// document is decoded (piece) and once it is whole (finish).
type interner struct {
	canon map[string]*openapi3.Schema
	// values are the values canon holds, shared those some other place
	// was given, and refused the leaves leafKey refused (finish meets
	// each leaf piece did again).
	values, shared, refused map[*openapi3.Schema]bool
	key                     []byte
}

func newInterner() *interner {
	return &interner{canon: map[string]*openapi3.Schema{}, values: map[*openapi3.Schema]bool{}, shared: map[*openapi3.Schema]bool{}, refused: map[*openapi3.Schema]bool{}}
}

// internLeaves shares the equal leaf schemas of a whole document.
func internLeaves(doc *openapi3.T) { newInterner().finish(doc, nil) }

// piece shares the leaves of a part of a document decoded but not yet
// resolved: paths, and the component schemas named. Its $refs point
// nowhere yet, so where they will point is not known: finish finds out,
// and refuses the document if one points at a leaf shared here.
func (in *interner) piece(paths *openapi3.Paths, schemas openapi3.Schemas, names []string) {
	w := newLeafWalker()
	if paths != nil {
		w.paths(paths)
	}
	for _, name := range names {
		if ref := schemas[name]; ref != nil {
			if ref.Value != nil {
				w.targets[ref.Value] = true
			}
			w.schema(ref)
		}
	}
	in.intern(w)
}

// finish shares the leaves of the whole, resolved document that piece
// did not, and reports false when a $ref points at a schema piece shared
// (the document must then be decoded again without sharing). refs, when
// known, are every $ref the text writes: when each names a component
// schema, none points at a leaf, and only the components piece was not
// given (parameters, responses, ...) are walked.
func (in *interner) finish(doc *openapi3.T, refs []string) bool {
	w := newLeafWalker()
	if refs != nil && onlyComponentSchemas(refs) {
		w.components(doc.Components, false)
	} else {
		w.document(doc)
		for t := range w.targets {
			if in.shared[t] {
				return false
			}
		}
	}
	in.intern(w)
	return true
}

// onlyComponentSchemas reports whether each of refs ("" aside) names a
// component schema of the document itself.
func onlyComponentSchemas(refs []string) bool {
	for _, ref := range refs {
		name, ok := strings.CutPrefix(ref, "#/components/schemas/")
		if ref != "" && (!ok || name == "" || strings.Contains(name, "/")) {
			return false
		}
	}
	return true
}

// intern gives each holder w found the value equal to its own that an
// earlier one has, when it may be shared.
func (in *interner) intern(w *leafWalker) {
	for _, h := range w.holders {
		s := h.Value
		if w.targets[s] || in.values[s] || in.refused[s] {
			continue
		}
		var ok bool
		if in.key, ok = leafKey(in.key[:0], s); !ok {
			in.refused[s] = true
			continue
		}
		if c, ok := in.canon[string(in.key)]; ok {
			h.Value = c
			in.shared[c] = true
		} else {
			in.canon[string(in.key)] = s
			in.values[s] = true
		}
	}
}

// leafWalker lists the inline schemas without subschemas (their holders)
// and the schemas $refs point at. Its order follows Go's maps: which of
// equal values the places come to share makes no difference. A place
// reached twice (a path item two paths $ref) is listed twice, and its
// second visit finds it shared already.
type leafWalker struct {
	targets map[*openapi3.Schema]bool
	holders []*openapi3.SchemaRef
}

func newLeafWalker() *leafWalker {
	return &leafWalker{targets: map[*openapi3.Schema]bool{}}
}

func (w *leafWalker) document(doc *openapi3.T) {
	w.components(doc.Components, true)
	if doc.Paths != nil {
		w.paths(doc.Paths)
	}
}

// components walks c, its schemas too when asked.
func (w *leafWalker) components(c *openapi3.Components, schemas bool) {
	if c == nil {
		return
	}
	if schemas {
		for _, ref := range c.Schemas {
			if ref != nil && ref.Value != nil {
				w.targets[ref.Value] = true
			}
			w.schema(ref)
		}
	}
	for _, ref := range c.Parameters {
		if ref != nil && ref.Value != nil {
			w.parameter(ref.Value)
		}
	}
	for _, ref := range c.Headers {
		if ref != nil && ref.Value != nil {
			w.parameter(&ref.Value.Parameter)
		}
	}
	for _, ref := range c.RequestBodies {
		if ref != nil && ref.Value != nil {
			w.content(ref.Value.Content)
		}
	}
	for _, ref := range c.Responses {
		if ref != nil {
			w.response(ref.Value)
		}
	}
}

func (w *leafWalker) paths(paths *openapi3.Paths) {
	for _, item := range paths.Map() {
		if item == nil {
			continue
		}
		w.parameters(item.Parameters)
		for _, op := range item.Operations() {
			w.parameters(op.Parameters)
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				w.content(rb.Value.Content)
			}
			if op.Responses != nil {
				for _, ref := range op.Responses.Map() {
					if ref != nil {
						w.response(ref.Value)
					}
				}
			}
		}
	}
}

func (w *leafWalker) parameters(ps openapi3.Parameters) {
	for _, ref := range ps {
		if ref != nil && ref.Value != nil {
			w.parameter(ref.Value)
		}
	}
}

func (w *leafWalker) parameter(p *openapi3.Parameter) {
	w.schema(p.Schema)
	w.content(p.Content)
}

func (w *leafWalker) response(r *openapi3.Response) {
	if r == nil {
		return
	}
	for _, ref := range r.Headers {
		if ref != nil && ref.Value != nil {
			w.parameter(&ref.Value.Parameter)
		}
	}
	w.content(r.Content)
}

func (w *leafWalker) content(c openapi3.Content) {
	for _, media := range c {
		if media != nil {
			w.schema(media.Schema)
		}
	}
}

// schema walks ref and its subschemas, stopping at $refs.
func (w *leafWalker) schema(ref *openapi3.SchemaRef) {
	if ref == nil || ref.Value == nil {
		return
	}
	if ref.Ref != "" {
		w.targets[ref.Value] = true
		return
	}
	s := ref.Value
	if isLeaf(s) {
		w.holders = append(w.holders, ref)
		return
	}
	subschemas(s, func(r *openapi3.SchemaRef, _, _ string) { w.schema(r) })
}

// leafKey appends to b a key that two schemas share exactly when they
// are equal, and reports false for a schema not to be shared: one with a
// keyword the key does not spell, a default, a pattern or an origin.
func leafKey(b []byte, s *openapi3.Schema) ([]byte, bool) {
	plain := *s
	plain.Type, plain.Format, plain.Description, plain.Title = nil, "", "", ""
	plain.Enum, plain.Extensions = nil, nil
	plain.Nullable, plain.ReadOnly, plain.WriteOnly, plain.Deprecated = false, false, false, false
	plain.MinLength, plain.MaxLength = 0, nil
	plain.AdditionalProperties.Has = nil
	if !reflect.ValueOf(&plain).Elem().IsZero() {
		return b, false
	}
	// Each value is written after its length, so that no two schemas
	// write the same bytes.
	field := func(name byte, value string) {
		b = append(b, name)
		b = strconv.AppendInt(b, int64(len(value)), 10)
		b = append(b, ':')
		b = append(b, value...)
	}
	// A value as its JSON text and its Go type: 1 and 1.0 read the same.
	// Most are strings (an enum's), written as they are.
	value := func(name byte, v any) {
		if str, ok := v.(string); ok {
			field(name, str)
			b = append(b, 's')
			return
		}
		field(name, jsonv.Text(v))
		if v != nil {
			field(':', reflect.TypeOf(v).String())
		}
	}
	flag := func(f bool) {
		if f {
			b = append(b, '1')
		} else {
			b = append(b, '0')
		}
	}
	flag(s.Type == nil)
	if s.Type != nil {
		for _, t := range *s.Type {
			field('t', t)
		}
	}
	field('f', s.Format)
	field('d', s.Description)
	field('T', s.Title)
	flag(s.Enum == nil)
	for _, e := range s.Enum {
		value('e', e)
	}
	flag(s.Extensions == nil)
	for _, name := range slices.Sorted(maps.Keys(s.Extensions)) {
		field('x', name)
		value('v', s.Extensions[name])
	}
	flag(s.Nullable)
	flag(s.ReadOnly)
	flag(s.WriteOnly)
	flag(s.Deprecated)
	field('m', strconv.FormatUint(s.MinLength, 10))
	flag(s.MaxLength == nil)
	if s.MaxLength != nil {
		field('M', strconv.FormatUint(*s.MaxLength, 10))
	}
	flag(s.AdditionalProperties.Has == nil)
	if s.AdditionalProperties.Has != nil {
		flag(*s.AdditionalProperties.Has)
	}
	return b, true
}
