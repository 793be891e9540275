package load

import (
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-openapi/jsonpointer"
)

// A spec in one file is loaded without kin-openapi's origins: recording a
// position for every node of the document took as long as the load itself
// (stripe: 0.35 s of 0.7 s), and a run needs a handful, for the nodes a
// warning is about. Those are found when asked instead: diagnostics carry
// a JSON pointer that the locator places (package locate), and a schema is
// named by its pointer, from an index of the document's schemas built on
// the first question. The answers are the positions the origins held: the
// locator reads a YAML text with the parser kin-openapi does, and places a
// JSON one in its index where that parser would (TestSchemaPlacesMatchOrigins).

// Origins reports whether kin-openapi recorded the document's positions;
// when it did not, positions come from Locate, and an operation's line
// from its pointer.
func (s *Spec) Origins() bool { return !s.unplaced }

// SchemaPlacer finds where the spec spells a keyword of a schema that has
// no origin (a *openapi3.Schema, or the *openapi3.SchemaRef of a $ref
// with siblings; keyword "" is the schema itself), or nil. It is nil when
// the document has origins, and for a Swagger 2.0 spec that needed repair
// (its converted document is not the text's).
func (s *Spec) SchemaPlacer() func(node any, keyword string) *openapi3.Location {
	if !s.unplaced && !s.swaggerPlaced || s.Doc == nil {
		return nil
	}
	return s.schemaPlace
}

func (s *Spec) schemaPlace(node any, keyword string) *openapi3.Location {
	ptr, ok := s.places.pointer(s.Doc, node)
	if !ok {
		return nil
	}
	if at, ok := s.places.holders[node]; ok && keyword == "" {
		ptr = at
	}
	if keyword != "" {
		ptr += "/" + jsonpointer.Escape(keyword)
	}
	p, ok := s.locate.Find([]string{ptr})[ptr]
	if !ok {
		return nil
	}
	return &openapi3.Location{File: p.File, Line: p.Line, Column: p.Col}
}

// schemaPlaces maps each schema of the document (and each $ref to a
// schema) to the JSON pointer of the place that writes it.
type schemaPlaces struct {
	once sync.Once
	ptrs map[any]string
	// holders are the places of the parameters, headers and media types
	// whose schemas these are: where kin-openapi's origins start them.
	holders map[any]string
}

func (sp *schemaPlaces) pointer(doc *openapi3.T, node any) (string, bool) {
	sp.once.Do(func() {
		sp.ptrs, sp.holders = map[any]string{}, map[any]string{}
		sp.document(doc)
	})
	p, ok := sp.ptrs[node]
	return p, ok
}

// document indexes the components before the paths, so that a schema
// both define is placed where its definition is.
func (sp *schemaPlaces) document(doc *openapi3.T) {
	if c := doc.Components; c != nil {
		for name, ref := range c.Schemas {
			sp.schema(ref, "#/components/schemas/"+jsonpointer.Escape(name))
		}
		for name, ref := range c.Parameters {
			if ref != nil && ref.Ref == "" {
				sp.parameter(ref.Value, "#/components/parameters/"+jsonpointer.Escape(name))
			}
		}
		for name, ref := range c.Headers {
			if ref != nil && ref.Ref == "" && ref.Value != nil {
				sp.parameter(&ref.Value.Parameter, "#/components/headers/"+jsonpointer.Escape(name))
			}
		}
		for name, ref := range c.RequestBodies {
			if ref != nil && ref.Ref == "" && ref.Value != nil {
				sp.content(ref.Value.Content, "#/components/requestBodies/"+jsonpointer.Escape(name))
			}
		}
		for name, ref := range c.Responses {
			if ref != nil && ref.Ref == "" {
				sp.response(ref.Value, "#/components/responses/"+jsonpointer.Escape(name))
			}
		}
	}
	if doc.Paths == nil {
		return
	}
	for path, item := range doc.Paths.Map() {
		if item == nil || item.Ref != "" {
			continue
		}
		at := "#/paths/" + jsonpointer.Escape(path)
		sp.parameters(item.Parameters, at)
		for method, op := range item.Operations() {
			if op == nil {
				continue
			}
			opAt := at + "/" + strings.ToLower(method)
			sp.parameters(op.Parameters, opAt)
			if rb := op.RequestBody; rb != nil && rb.Ref == "" && rb.Value != nil {
				sp.content(rb.Value.Content, opAt+"/requestBody")
			}
			if op.Responses != nil {
				for code, ref := range op.Responses.Map() {
					if ref != nil && ref.Ref == "" {
						sp.response(ref.Value, opAt+"/responses/"+jsonpointer.Escape(code))
					}
				}
			}
		}
	}
}

func (sp *schemaPlaces) parameters(ps openapi3.Parameters, at string) {
	for i, ref := range ps {
		if ref != nil && ref.Ref == "" {
			sp.parameter(ref.Value, at+"/parameters/"+strconv.Itoa(i))
		}
	}
}

func (sp *schemaPlaces) parameter(p *openapi3.Parameter, at string) {
	if p == nil {
		return
	}
	sp.held(p.Schema, at)
	sp.content(p.Content, at)
}

func (sp *schemaPlaces) response(r *openapi3.Response, at string) {
	if r == nil {
		return
	}
	for name, ref := range r.Headers {
		if ref != nil && ref.Ref == "" && ref.Value != nil {
			sp.parameter(&ref.Value.Parameter, at+"/headers/"+jsonpointer.Escape(name))
		}
	}
	sp.content(r.Content, at)
}

func (sp *schemaPlaces) content(c openapi3.Content, at string) {
	for mt, media := range c {
		if media != nil {
			sp.held(media.Schema, at+"/content/"+jsonpointer.Escape(mt))
		}
	}
}

// held records the schema of a parameter, header or media type at.
func (sp *schemaPlaces) held(ref *openapi3.SchemaRef, at string) {
	if ref != nil && ref.Ref == "" && ref.Value != nil {
		if _, seen := sp.ptrs[ref.Value]; !seen {
			sp.holders[ref.Value] = at
		}
	}
	sp.schema(ref, at+"/schema")
}

// schema records ref's place and its subschemas'. A $ref is recorded as
// itself (its siblings are written there); what it points at is recorded
// where it is defined.
func (sp *schemaPlaces) schema(ref *openapi3.SchemaRef, at string) {
	if ref == nil {
		return
	}
	if _, seen := sp.ptrs[ref]; seen {
		return
	}
	sp.ptrs[ref] = at
	s := ref.Value
	if ref.Ref != "" || s == nil {
		return
	}
	if _, seen := sp.ptrs[s]; seen {
		return
	}
	sp.ptrs[s] = at
	subschemas(s, func(r *openapi3.SchemaRef, keyword, member string) {
		if member != "" {
			keyword += "/" + jsonpointer.Escape(member)
		}
		sp.schema(r, at+"/"+keyword)
	})
}
